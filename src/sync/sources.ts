import type {Selectable} from 'kysely'
import type {Config} from '../config/index.js'
import {refuse} from '../errors.js'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import type {SyncRunTable, SyncSourceTable} from '../store/schema.js'
import {write} from '../store/write.js'
import {profileMisfit} from './credentials.js'
import type {SyncSourceInput} from './input.js'

export type SyncSource = Selectable<SyncSourceTable>
export type SyncRun = Selectable<SyncRunTable>

/** Adds a source. A named credentials profile must exist in the config (its values are never stored). */
export function addSyncSource(store: Store, config: Config, live: boolean, input: SyncSourceInput): SyncSource {
  const kind = input.s3 ? 's3' : 'url'
  if (input.credentials !== undefined) {
    const profile = config.sync.credentials[input.credentials]
    const names = Object.keys(config.sync.credentials)
    if (!profile) throw refuse.invalid('credentials', `must name a profile under sync.credentials in the config file (${names.length ? `profiles: ${names.join(', ')}` : 'none is configured'})`)
    const misfit = profileMisfit(kind, profile)
    if (misfit) throw refuse.invalid('credentials', `profile "${input.credentials}" ${misfit}`)
  }
  const url = (input.s3 ?? input.url)!
  const same = sameFile(store, live, kind, url, input.endpoint)
  if (same) {
    throw refuse.conflict(kind === 's3' ? 's3' : 'url', `the ${live ? 'live' : 'test'} environment already syncs ${displayUrl(same.url)} (source ${same.id}); remove that source first (loc geofences sync remove ${same.id})`)
  }
  const now = nowIso()
  const row: SyncSource = {
    id: newId(),
    live: live ? 1 : 0,
    kind,
    url,
    region: input.region ?? null,
    endpoint: input.endpoint ?? null,
    credentials: input.credentials ?? null,
    schedule: input.schedule ?? config.sync.schedule,
    prune: input.prune ? 1 : 0,
    etag: null,
    hash: null,
    created_at: now,
    updated_at: now,
  }
  write(store, (tx) => tx.run(store.db.insertInto('sync_sources').values(row)))
  return row
}

/**
 * The environment's source of the same file, if any: two would import one file twice, each claiming
 * its geofences and, with --prune, deleting the other's. URLs compare as parsed (`HTTP://Host/` is
 * `http://host/`); an S3 object is the same at the same endpoint (any region).
 */
function sameFile(store: Store, live: boolean, kind: SyncSource['kind'], url: string, endpoint: string | undefined): SyncSource | undefined {
  const normal = (text: string | null | undefined) => {
    if (!text) return null
    try {
      return new URL(text).href
    } catch {
      return text
    }
  }
  return syncSources(store, live).find((s) => s.kind === kind && (kind === 's3' ? s.url === url && normal(s.endpoint) === normal(endpoint) : normal(s.url) === normal(url)))
}

export function syncSources(store: Store, live?: boolean): SyncSource[] {
  const rows = store.sqlite.prepare('SELECT * FROM sync_sources ORDER BY created_at').all() as SyncSource[]
  return live === undefined ? rows : rows.filter((r) => r.live === (live ? 1 : 0))
}

export function syncSource(store: Store, id: string): SyncSource | undefined {
  return store.sqlite.prepare('SELECT * FROM sync_sources WHERE id = ?').get(id) as SyncSource | undefined
}

/** Removes a source and its run history; its geofences stay (no longer owned by any source). */
export function removeSyncSource(store: Store, id: string): boolean {
  return write(store, (tx) => {
    tx.run(store.db.updateTable('geofences').set({sync_source: null}).where('sync_source', '=', id))
    return tx.run(store.db.deleteFrom('sync_sources').where('id', '=', id)) > 0
  })
}

export function syncRun(store: Store, id: string): SyncRun | undefined {
  return store.sqlite.prepare('SELECT * FROM sync_runs WHERE id = ?').get(id) as SyncRun | undefined
}

export function lastRuns(store: Store, sourceId: string, limit = 5): SyncRun[] {
  return store.sqlite.prepare('SELECT * FROM sync_runs WHERE source_id = ? ORDER BY started_at DESC LIMIT ?').all(sourceId, limit) as SyncRun[]
}

/** A URL as shown in output and logs: query strings (signed URLs carry tokens there) are elided. */
export function displayUrl(url: string): string {
  const q = url.indexOf('?')
  return q === -1 ? url : `${url.slice(0, q)}?…`
}

/** The job a sync run is, as `GET /v1/jobs/:id` answers it. */
export function jobJson(run: SyncRun, source?: SyncSource): Record<string, unknown> {
  return {
    _id: run.id,
    type: 'geofences.sync',
    live: run.live === 1,
    status: run.status,
    trigger: run.trigger,
    source: {_id: run.source_id, ...(source ? {url: displayUrl(source.url)} : {})},
    createdAt: run.started_at,
    ...(run.finished_at ? {finishedAt: run.finished_at, durationMs: run.duration_ms} : {}),
    counts: {created: run.created, updated: run.updated, unchanged: run.unchanged, deleted: run.deleted, failed: run.failed},
    ...(run.error ? {error: run.error} : {}),
  }
}
