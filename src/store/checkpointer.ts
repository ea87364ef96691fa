import {createRequire} from 'node:module'
import {Worker} from 'node:worker_threads'
import type {Store} from './db.js'

/**
 * How often the checkpointer copies the WAL back into the database. A page written again and again
 * (a busy user's row, an index's last leaf) is copied once per checkpoint: at 250 ms against 50 the
 * process spent ~10-15 % less CPU a track at 100k geofences (the thread's copying and syncing),
 * for a WAL of up to ~20 MB at 4,000 tracks/s.
 */
export const CHECKPOINT_EVERY_MS = 250
// SQLite's own checkpoint, run by whichever commit crosses this many WAL pages, stays as the safety
// net should the thread fall behind; SQLite's default is 1,000
const FALLBACK_PAGES = 20_000

export interface Checkpointer {
  stop(): Promise<void>
}

// the thread's source, evaluated as is (so the same code runs from src under the tests and from dist)
const THREAD = `
const {parentPort, workerData: {driver, file, everyMs}} = require('node:worker_threads')
const db = new (require(driver))(file)
db.pragma('synchronous = NORMAL')
db.pragma('busy_timeout = 0')
const checkpoint = () => {
  try { db.pragma('wal_checkpoint(PASSIVE)') } catch {} // busy: another connection checkpoints; the next tick retries
}
const timer = setInterval(checkpoint, everyMs)
parentPort.on('message', () => {
  clearInterval(timer)
  checkpoint()
  db.close()
  parentPort.close()
})`

/**
 * Checkpoints the store's WAL from a worker thread with its own connection, so the event loop never
 * pays for them: SQLite runs an automatic checkpoint inside the commit that crosses 1,000 WAL pages,
 * and at 100k geofences that was ~12 % of the server's time under track load, fsyncs included. A
 * PASSIVE checkpoint never blocks the writer or readers; once it has copied every frame, the next
 * write restarts the WAL. Under sustained writes it never has (frames come in while it copies), so
 * the commit that reaches FALLBACK_PAGES copies the rest and restarts it: taking the write lock
 * for the last frames instead stalled every request more (docs/api/tracking.md, Performance).
 */
export function startCheckpointer(store: Store): Checkpointer {
  const driver = createRequire(import.meta.url).resolve('better-sqlite3')
  const worker = new Worker(THREAD, {eval: true, workerData: {driver, file: store.file, everyMs: CHECKPOINT_EVERY_MS}})
  worker.unref()
  store.sqlite.pragma(`wal_autocheckpoint = ${FALLBACK_PAGES}`)
  let stopped: Promise<void> | undefined
  return {
    stop() {
      stopped ??= new Promise<void>((resolve) => {
        // referenced again so that the process waits for the last checkpoint
        worker.ref()
        worker.once('exit', () => resolve())
        worker.postMessage('stop')
      }).then(() => {
        if (store.sqlite.open) store.sqlite.pragma('wal_autocheckpoint = 1000')
      })
      return stopped
    },
  }
}
