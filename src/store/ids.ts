import {randomBytes} from 'node:crypto'

// random bytes drawn 4 KiB at a time: one randomBytes call per id cost ~8 % of a busy track
const POOL_BYTES = 4096
let pool = Buffer.alloc(0)
let used = POOL_BYTES

/** A 24-character alphanumeric id: 4 bytes of seconds then 8 random bytes, hex (ObjectId-like, sortable by creation). */
export function newId(): string {
  const seconds = Math.floor(Date.now() / 1000).toString(16).padStart(8, '0')
  if (used + 8 > pool.length) {
    pool = randomBytes(POOL_BYTES)
    used = 0
  }
  used += 8
  return seconds + pool.toString('hex', used - 8, used)
}

let lastMs = 0

/**
 * Wall-clock milliseconds that never repeat within this process. Lists page with
 * `updatedBefore=<last updatedAt>`, so two rows stamped in the same millisecond would make a
 * page boundary skip one of them; strictly increasing stamps make those cursors exact.
 */
export function nowMs(): number {
  const now = Date.now()
  lastMs = now > lastMs ? now : lastMs + 1
  return lastMs
}

export function nowIso(): string {
  return new Date(nowMs()).toISOString()
}
