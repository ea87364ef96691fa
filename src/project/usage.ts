import type {Store} from '../store/db.js'
import {write, writeGrouped} from '../store/write.js'

/** `YYYY-MM` of a time, UTC: quotas run per calendar month. */
export const monthOf = (ms: number) => new Date(ms).toISOString().slice(0, 7)

const nextMonthStart = (ms: number) => {
  const d = new Date(ms)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1)
}

export interface UsageMeter {
  /** Requests of this environment counted this month, written or not. */
  used(live: boolean): number
  /** Counts one request. */
  count(live: boolean): void
  /** Writes the counts not yet stored. */
  flush(): void
  /** Flushes and stops the timer. */
  close(): void
}

/**
 * Counts API requests per environment and month. Counting is in memory (a write per request would
 * cost more than the request) and reaches the `usage` table every `flushMs` and on close, so a
 * crash loses at most that much counting; a restart resumes from the table.
 */
export function createUsageMeter(store: Store, options: {flushMs?: number; now?: () => number} = {}): UsageMeter {
  const now = options.now ?? Date.now
  const read = store.sqlite.prepare('SELECT requests FROM usage WHERE live = ? AND month = ?').pluck()
  const add = store.sqlite.prepare(
    'INSERT INTO usage (live, month, requests) VALUES (?, ?, ?) ON CONFLICT (live, month) DO UPDATE SET requests = requests + excluded.requests',
  )
  let month = monthOf(now())
  let monthEnds = nextMonthStart(now())
  // per environment (index 0 test, 1 live): stored count of this month, and counted since the last flush
  let stored = [0, 1].map((live) => (read.get(live, month) as number | undefined) ?? 0)
  let pending = [0, 0]
  let pendingMonth = month

  const rollover = () => {
    const t = now()
    if (t < monthEnds) return
    flush()
    month = monthOf(t)
    monthEnds = nextMonthStart(t)
    pendingMonth = month
    stored = [0, 1].map((live) => (read.get(live, month) as number | undefined) ?? 0)
  }
  const addCounts = (counts: number[], at: string) => {
    for (const live of [0, 1]) if (counts[live]) add.run(live, at, counts[live])
  }
  const flush = () => {
    if (pending[0] === 0 && pending[1] === 0) return
    const counts = pending
    write(store, () => addCounts(counts, pendingMonth))
    stored = stored.map((n, live) => n + pending[live])
    pending = [0, 0]
  }
  // counts handed to a grouped write that has not committed yet
  let writing = [0, 0]
  // the timer's flush waits in the event loop while another process holds the write lock (a CLI
  // import): a blocking write would stall every request for up to the busy timeout, each second
  const flushSoon = () => {
    if (pending[0] === 0 && pending[1] === 0) return
    const counts = pending, at = pendingMonth
    pending = [0, 0]
    writing = writing.map((n, live) => n + counts[live])
    const settled = () => (writing = writing.map((n, live) => n - counts[live]))
    writeGrouped(store, () => addCounts(counts, at)).then(() => {
      settled()
      if (at === month) stored = stored.map((n, live) => n + counts[live])
    }, () => {
      // still locked past the busy timeout: the counts go with the next flush
      settled()
      if (at === pendingMonth) pending = pending.map((n, live) => n + counts[live])
    })
  }
  const timer = setInterval(flushSoon, options.flushMs ?? 1000)
  timer.unref()

  return {
    used(live) {
      rollover()
      const i = live ? 1 : 0
      return stored[i] + writing[i] + pending[i]
    },
    count(live) {
      rollover()
      pending[live ? 1 : 0]++
    },
    flush,
    close() {
      clearInterval(timer)
      flush()
    },
  }
}
