import {randomFillSync} from 'node:crypto'

/** Random bytes drawn 4 KiB at a time: one `randomBytes(8)` per id was 5 % of a bulk import and ~8 % of a busy track. */
const POOL = 4096
const pool = Buffer.alloc(POOL)
let poolAt = POOL

/** A 24-character alphanumeric id: 4 bytes of seconds then 8 random bytes, hex (ObjectId-like, sortable by creation). */
export function newId(): string {
  const seconds = Math.floor(Date.now() / 1000).toString(16).padStart(8, '0')
  if (poolAt === POOL) {
    randomFillSync(pool)
    poolAt = 0
  }
  poolAt += 8
  return seconds + pool.toString('hex', poolAt - 8, poolAt)
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

/** The first of `n` strictly increasing milliseconds, as `n` calls of `nowMs` give them: for one statement that stamps many rows. */
export function reserveMs(n: number): number {
  const first = nowMs()
  lastMs = first + Math.max(n, 1) - 1
  return first
}
