import {randomBytes, randomInt} from 'node:crypto'

// ObjectId's layout: seconds, 5 random bytes per process, a counter from a random start. A
// process's ids of one second are increasing, so each table's id index is appended to instead of
// written at random among that second's pages (~0.6 WAL page per event at 1,500 events/s)
const PROCESS = randomBytes(5).toString('hex')
// a start below 2^23: the counter wraps (and a second's ids stop increasing) only after 8M ids
let counter = randomInt(0x800000)
let second = -1
let head = ''

/** A 24-character id, hex: 4 bytes of seconds, 5 bytes fixed per process, a 3-byte counter (ObjectId's layout, sortable by creation). */
export function newId(): string {
  const now = Math.floor(Date.now() / 1000)
  if (now !== second) {
    second = now
    head = now.toString(16).padStart(8, '0') + PROCESS
  }
  counter = (counter + 1) & 0xffffff
  return head + counter.toString(16).padStart(6, '0')
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
