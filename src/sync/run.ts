import {mkdirSync, readdirSync, rmSync} from 'node:fs'
import {hostname} from 'node:os'
import path from 'node:path'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import {write, writeGrouped} from '../store/write.js'
import type {System} from './import.js'
import {CredentialsFailed, sourceCredentials} from './credentials.js'
import {download, DownloadFailed} from './download.js'
import {importGeofences} from './import.js'
import {displayUrl, type SyncRun, syncRun, syncSource, type SyncSource} from './sources.js'
import {processAlive} from '../pid.js'

export type Trigger = SyncRun['trigger']

/** Runs in progress per store and source: a second start of a running source joins it. */
const running = new WeakMap<Store, Map<string, {run: SyncRun; recorded: Promise<void>; done: Promise<SyncRun>}>>()

/**
 * Starts a sync of `source` now and returns its run (status `running`) at once; `recorded` settles
 * once the run is in `sync_runs`, `done` with the finished run. Every run is recorded in
 * `sync_runs` whatever happens.
 */
export function startSync(system: System, source: SyncSource, trigger: Trigger): {run: SyncRun; recorded: Promise<void>; done: Promise<SyncRun>} {
  let bySource = running.get(system.store)
  if (!bySource) running.set(system.store, (bySource = new Map()))
  const current = bySource.get(source.id)
  if (current) return current
  const run: SyncRun = {
    id: newId(), source_id: source.id, live: source.live, trigger, status: 'running',
    created: 0, updated: 0, unchanged: 0, deleted: 0, failed: 0, error: null, etag: null, hash: null, bytes: null,
    started_at: nowIso(), finished_at: null, duration_ms: null, pid: process.pid, host: hostname(),
  }
  const recorded = writeGrouped(system.store, (tx) => void tx.run(system.store.db.insertInto('sync_runs').values(run)))
  const map = bySource
  const done = recorded.then(() => perform(system, source, run)).finally(() => map.delete(source.id))
  const entry = {run, recorded, done}
  map.set(source.id, entry)
  return entry
}

/** Runs a sync to its end (the CLI's `sync run` and the scheduler). */
export function runSync(system: System, source: SyncSource, trigger: Trigger): Promise<SyncRun> {
  return startSync(system, source, trigger).done
}

/**
 * Download → unchanged? skip → import all-or-nothing (a file with any bad row changes nothing) →
 * record. The downloaded file lives in `<dataDir>/tmp` only for the run.
 */
async function perform(system: System, source: SyncSource, run: SyncRun): Promise<SyncRun> {
  const {trigger} = run
  const {store, config, log} = system
  const started = performance.now()
  const dir = downloadDir(config.dataDir)
  try {
    sweepStaleDownloads(store, config.dataDir)
  } catch (err) {
    // housekeeping: never the reason a run fails or is left running
    log.warn({err}, 'sync: cannot remove stale downloads')
  }
  mkdirSync(dir, {recursive: true})
  const file = path.join(dir, `sync-${run.id}.csv`)
  const result: Partial<SyncRun> = {}
  const sourceUpdate: Partial<SyncSource> = {}
  try {
    // before any download: a profile that cannot be used fails the run, it never falls back
    const credentials = sourceCredentials(source, config)
    const fetched = await download(source, config, file, source.etag, credentials)
    if (fetched.notModified) {
      Object.assign(result, {status: 'skipped', error: null, etag: source.etag})
    } else if (fetched.hash === source.hash) {
      Object.assign(result, {status: 'skipped', etag: fetched.etag, hash: fetched.hash, bytes: fetched.bytes})
      sourceUpdate.etag = fetched.etag
    } else {
      Object.assign(result, {etag: fetched.etag, hash: fetched.hash, bytes: fetched.bytes})
      const latest = syncSource(store, source.id) ?? source
      const summary = await importGeofences(system, file, {live: source.live === 1, source: {id: source.id, prune: latest.prune === 1}})
      const counts = {created: summary.created, updated: summary.updated, unchanged: summary.unchanged, deleted: summary.deleted, failed: summary.failed}
      if (summary.written) {
        Object.assign(result, counts, {status: 'succeeded'})
        Object.assign(sourceUpdate, {etag: fetched.etag, hash: fetched.hash})
      } else {
        const shown = summary.failures.slice(0, 5).map((f) => `row ${f.row}${f.column ? `, ${f.column}` : ''}: ${f.reason}`)
        const more = summary.failed > shown.length ? `; and ${summary.failed - shown.length} more` : ''
        Object.assign(result, counts, {status: 'failed', error: `invalid CSV, nothing changed (${summary.failed} of ${summary.rows} rows failed): ${shown.join('; ')}${more}`})
      }
    }
  } catch (error) {
    result.status = 'failed'
    const expected = error instanceof DownloadFailed || error instanceof CredentialsFailed
    result.error = expected ? error.message : `internal error: ${(error as Error).message}`
    if (!expected) log.error({err: error, sourceId: source.id}, 'sync failed')
  } finally {
    rmSync(file, {force: true})
  }
  const finished = {...result, finished_at: nowIso(), duration_ms: Math.round(performance.now() - started)}
  await writeGrouped(store, (tx) => {
    tx.run(store.db.updateTable('sync_runs').set(finished).where('id', '=', run.id))
    if (Object.keys(sourceUpdate).length) tx.run(store.db.updateTable('sync_sources').set({...sourceUpdate, updated_at: nowIso()}).where('id', '=', source.id))
  })
  const recorded = syncRun(store, run.id)!
  const line = {sourceId: source.id, url: displayUrl(source.url), runId: run.id, trigger, status: recorded.status, created: recorded.created,
    updated: recorded.updated, unchanged: recorded.unchanged, deleted: recorded.deleted, failed: recorded.failed, durationMs: recorded.duration_ms,
    error: recorded.error ?? undefined}
  // a failed run wants an operator's eye, as a failed webhook delivery does
  if (recorded.status === 'failed') log.warn(line, 'geofence sync')
  else log.info(line, 'geofence sync')
  return recorded
}

/**
 * Marks the runs left `running` by a process that is gone (killed, crashed, the machine restarted)
 * as failed, and returns how many. Such a run changed nothing: an import writes in one transaction
 * at its end. A run of another host is left alone (its process cannot be checked from here).
 */
export function failAbandonedRuns(store: Store): number {
  const {abandoned} = runningRuns(store)
  if (!abandoned.length) return 0
  const finishedAt = nowIso()
  write(store, (tx) => {
    for (const r of abandoned) {
      const error = `the process running this sync${r.pid === null ? '' : ` (pid ${r.pid})`} ended before the run finished; nothing was changed`
      tx.run(store.db.updateTable('sync_runs').set({status: 'failed', error, finished_at: finishedAt}).where('id', '=', r.id).where('status', '=', 'running'))
    }
  })
  return abandoned.length
}

/** The runs `running` in `sync_runs`: those a process still runs, and those whose process is gone. */
function runningRuns(store: Store): {live: Set<string>; abandoned: Array<Pick<SyncRun, 'id' | 'pid' | 'host'>>} {
  const runs = store.sqlite.prepare("SELECT id, pid, host FROM sync_runs WHERE status = 'running'").all() as Array<Pick<SyncRun, 'id' | 'pid' | 'host'>>
  const ours = new Set([...(running.get(store)?.values() ?? [])].map((r) => r.run.id))
  const here = hostname()
  const gone = (r: Pick<SyncRun, 'id' | 'pid' | 'host'>) => r.pid === null || (r.host === here && !ours.has(r.id) && (r.pid === process.pid || !processAlive(r.pid)))
  return {live: new Set(runs.filter((r) => !gone(r)).map((r) => r.id)), abandoned: runs.filter(gone)}
}

/**
 * Removes the downloads (`<dataDir>/tmp/sync-<run id>.csv`) of runs no longer running: a killed
 * process leaves its file behind. Run when `serve` starts and before each sync. A run's file exists
 * only while its row says `running` (written before the download, removed before the row is
 * finished), so a file of a run that is not running in a live process is nobody's.
 */
export function sweepStaleDownloads(store: Store, dataDir: string): number {
  let names: string[]
  try {
    names = readdirSync(downloadDir(dataDir))
  } catch {
    return 0
  }
  const {live} = runningRuns(store)
  let swept = 0
  for (const name of names) {
    const run = /^sync-(.+)\.csv$/.exec(name)?.[1]
    if (run === undefined || live.has(run)) continue
    rmSync(path.join(downloadDir(dataDir), name), {force: true})
    swept++
  }
  return swept
}

const downloadDir = (dataDir: string) => path.join(dataDir, 'tmp')

/** Waits for every sync running on this store (shutdown). */
export async function syncsSettled(store: Store): Promise<void> {
  await Promise.all([...(running.get(store)?.values() ?? [])].map((r) => r.done.catch(() => undefined)))
}
