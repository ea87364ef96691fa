import {CompiledQuery, type Insertable, type Selectable, sql} from 'kysely'
import type {Store} from '../store/db.js'
import type {GeofenceTable} from '../store/schema.js'
import {newId, nowIso} from '../store/ids.js'
import {fetchPage, mergedNewestFirst, newestFirst, type Page, type PageQuery, pageOf, pageReads, withinCursors} from '../store/paging.js'
import {type Tx, writeGrouped, writeUnique} from '../store/write.js'
import {numeric} from '../validate.js'
import type {UserRow} from '../users/json.js'
import {duplicateGeofence, type GeofenceInput} from './input.js'

export type GeofenceRow = Selectable<GeofenceTable>

/** A geofence is referenced by `_id` or by `tag` plus `externalId`, always within one environment. */
export type GeofenceRef = {id: string} | {tag: string; externalId: string}


/** The columns an upsert writes: everything but `id`, `live` and `created_at`. */
export function contentColumns(input: GeofenceInput, updatedAt: string) {
  const {shape} = input
  return {
    tag: input.tag ?? null,
    external_id: input.externalId ?? null,
    description: input.description,
    type: input.type,
    geometry: JSON.stringify(shape.geometry),
    center_lng: shape.center[0],
    center_lat: shape.center[1],
    radius: shape.radius,
    mode: input.mode ?? null,
    metadata: input.metadata ? JSON.stringify(input.metadata) : null,
    user_id: input.userId ?? null,
    user_ids: input.userIds ?? null,
    ip: input.ip ?? null,
    trip_approaching_threshold: input.tripApproachingThreshold ?? null,
    dwell_threshold: input.dwellThreshold ?? null,
    enabled: input.enabled ? 1 : 0,
    stop_detection: input.stopDetection === undefined ? null : input.stopDetection ? 1 : 0,
    operating_hours: input.operatingHours ? JSON.stringify(input.operatingHours) : null,
    disable_after: input.disableAfter ?? null,
    delete_after: input.deleteAfter ?? null,
    min_lng: shape.bbox.minLng,
    min_lat: shape.bbox.minLat,
    max_lng: shape.bbox.maxLng,
    max_lat: shape.bbox.maxLat,
    updated_at: updatedAt,
  } satisfies Partial<Insertable<GeofenceTable>>
}

/** Creates a geofence; a `tag`+`externalId` pair that already exists is refused (409). */
export function createGeofence(store: Store, live: boolean, input: GeofenceInput): Promise<GeofenceRow> {
  return writeUnique(store, (tx) => insertGeofence(tx, live, input), duplicateGeofence)
}

/** `createGeofence` inside a caller's write (bulk loads); a duplicate throws SQLite's unique violation. */
export function insertGeofence(tx: Tx, live: boolean, input: GeofenceInput): GeofenceRow {
  const content = contentColumns(input, nowIso())
  return tx.get(tx.store.db.insertInto('geofences')
    .values({id: newId(), live: live ? 1 : 0, ...content, created_at: content.updated_at})
    .returningAll())!
}

/**
 * Creates or replaces the geofence with this `tag` and `externalId` in one statement (so two
 * concurrent upserts cannot both create). An update keeps `_id` and `createdAt`. The hottest write
 * (API and sync upserts), so its SQL is written once here instead of built per call.
 */
export async function upsertGeofenceByKey(store: Store, live: boolean, tag: string, externalId: string, input: GeofenceInput): Promise<GeofenceRow> {
  const content = contentColumns({...input, tag, externalId}, nowIso())
  const row: Insertable<GeofenceTable> = {id: newId(), live: live ? 1 : 0, ...content, created_at: content.updated_at}
  const params = UPSERT_COLUMNS.map((column) => row[column])
  return (await writeGrouped(store, (tx) => tx.get<GeofenceRow>(CompiledQuery.raw(UPSERT_SQL, params as unknown[]) as CompiledQuery<GeofenceRow>)))!
}

const UPSERT_COLUMNS = Object.keys({id: '', live: 0, ...contentColumns(placeholderInput(), ''), created_at: ''}) as Array<keyof GeofenceTable>
const UPSERT_SQL = `insert into geofences (${UPSERT_COLUMNS.join(', ')}) values (${UPSERT_COLUMNS.map(() => '?').join(', ')})
  on conflict (live, tag, external_id) where external_id is not null
  do update set ${UPSERT_COLUMNS.filter((c) => !['id', 'live', 'created_at', 'tag', 'external_id'].includes(c)).map((c) => `${c} = excluded.${c}`).join(', ')}
  returning *`

function placeholderInput(): GeofenceInput {
  const shape = {geometry: {type: 'Polygon' as const, coordinates: []}, center: [0, 0] as [number, number], radius: 0, bbox: {minLng: 0, minLat: 0, maxLng: 0, maxLat: 0}}
  return {description: '', type: 'circle', shape, enabled: true}
}

/** Replaces the geofence with this `_id`; null when there is none in this environment. A duplicate `tag`+`externalId` is refused (409). */
export async function updateGeofenceById(store: Store, live: boolean, id: string, input: GeofenceInput): Promise<GeofenceRow | null> {
  const content = contentColumns(input, nowIso())
  const row = await writeUnique(store, (tx) =>
    tx.get(store.db.updateTable('geofences').set(content).where('id', '=', id).where('live', '=', live ? 1 : 0).returningAll()), duplicateGeofence)
  return row ?? null
}

export async function getGeofence(store: Store, live: boolean, ref: GeofenceRef): Promise<GeofenceRow | null> {
  const row = await byRef(store.db.selectFrom('geofences').selectAll(), live, ref).executeTakeFirst()
  return row ?? null
}

/** True when a geofence was deleted. Presence rows go with it (foreign key cascade). */
export async function deleteGeofence(store: Store, live: boolean, ref: GeofenceRef): Promise<boolean> {
  return (await writeGrouped(store, (tx) => tx.run(byRef(store.db.deleteFrom('geofences'), live, ref)))) > 0
}

function byRef<Q extends {where: (...args: any[]) => any}>(query: Q, live: boolean, ref: GeofenceRef): Q {
  let q = (query as any).where('live', '=', live ? 1 : 0)
  if ('id' in ref) return q.where('id', '=', ref.id)
  q = q.where('tag', '=', ref.tag).where('external_id', '=', ref.externalId)
  return q
}

export interface GeofenceFilters {
  tag?: string
  externalId?: string
  /** `metadata[key]=value`: `true`/`false` also match booleans, numbers also match numbers. */
  metadata?: Record<string, string>
}

/** One page, newest `updatedAt` first. */
export function listGeofences(store: Store, live: boolean, page: PageQuery, filters: GeofenceFilters = {}): Page<GeofenceRow> {
  const metadata = Object.entries(filters.metadata ?? {})
  if (metadata.length) return listByMetadata(store, live, page, filters, metadata)
  let q = store.db.selectFrom('geofences').selectAll().where('live', '=', live ? 1 : 0)
  if (filters.tag !== undefined) q = q.where('tag', '=', filters.tag)
  if (filters.externalId !== undefined) q = q.where('external_id', '=', filters.externalId)
  return fetchPage(q, page, 'updated_at')
}

/**
 * Metadata filters read `geofence_metadata` (migration 004): the first filter walks its index in
 * list order, once per value it may match (`5` matches the text and the number), each read
 * `limit + 1` rows first (more only to finish a run of one timestamp, see `pageOf`); the reads are
 * merged. Further filters and `tag`/`externalId` are checked per candidate.
 */
function listByMetadata(store: Store, live: boolean, page: PageQuery, filters: GeofenceFilters, metadata: Array<[string, string]>): Page<GeofenceRow> {
  const [[key, value], ...rest] = metadata.length > 1 ? mostSelectiveFirst(store, live, metadata) : metadata
  const reads = matchValues(value).map((v) => {
    let q = store.db.selectFrom('geofence_metadata as m').innerJoin('geofences as g', 'g.id', 'm.geofence_id').selectAll('g')
      .where('m.live', '=', live ? 1 : 0).where('m.key', '=', key).where('m.value', '=', v)
    if (page.updatedBefore) q = q.where('m.updated_at', '<', page.updatedBefore)
    if (page.updatedAfter) q = q.where('m.updated_at', '>', page.updatedAfter)
    if (page.createdBefore) q = q.where('g.created_at', '<', page.createdBefore)
    if (page.createdAfter) q = q.where('g.created_at', '>', page.createdAfter)
    if (filters.tag !== undefined) q = q.where('g.tag', '=', filters.tag)
    if (filters.externalId !== undefined) q = q.where('g.external_id', '=', filters.externalId)
    for (const [k, val] of rest) {
      q = q.where(({exists, selectFrom}) => exists(selectFrom('geofence_metadata as m2').select('m2.geofence_id')
        .whereRef('m2.geofence_id', '=', 'g.id').where('m2.key', '=', k).where('m2.value', 'in', matchValues(val))))
    }
    return pageReads(q, page.limit, {sort: 'm.updated_at', id: 'm.geofence_id', rowSort: 'updated_at'})
  })
  return pageOf(reads.length === 1 ? reads[0] : mergedNewestFirst(reads, 'updated_at'), page.limit, 'updated_at')
}

/** Index entries a selectivity probe counts at most per filter (~0.5 ms each). */
const PROBE_LIMIT = 5000

/**
 * The filters ordered by how many index entries each matches (counted up to PROBE_LIMIT): the
 * walk follows the rarest, so `metadata[kind]=store&metadata[id]=42` reads one entry instead of
 * every store while checking the id of each.
 */
function mostSelectiveFirst(store: Store, live: boolean, metadata: Array<[string, string]>): Array<[string, string]> {
  const probe = store.statement(`SELECT count(*) FROM (SELECT 1 FROM geofence_metadata WHERE live = ? AND key = ? AND value IN (SELECT value FROM json_each(?)) LIMIT ${PROBE_LIMIT})`).pluck()
  const counted = metadata.map((filter) => ({filter, n: probe.get(live ? 1 : 0, filter[0], JSON.stringify(matchValues(filter[1]))) as number}))
  return counted.sort((a, b) => a.n - b.n).map((c) => c.filter)
}

/** What a `metadata[key]=value` filter matches: the text, and the number when it is one (`true`/`false` match booleans, stored as that text). */
function matchValues(value: string): Array<string | number> {
  const n = numeric(value)
  return typeof n === 'number' ? [value, n] : [value]
}

/**
 * Users looked at per statement when listing those inside a geofence: ~2.5 ms of the event loop,
 * with other requests answered between two.
 */
const SCAN_USERS = 1000

/**
 * Users inside the geofence now, newest `updatedAt` first: those whose `users.presence` lists it.
 * Presence is stored only in the user row (a track writes one b-tree for it, not two), so this
 * walks the environment's users newest first, SCAN_USERS a statement, keeping those whose presence
 * holds the geofence's id (quoted, as only ids are in presence). A page costs time in proportion to
 * the users walked past, not to those listed: ~2.5 ms per thousand users (0.25 s among 100k).
 */
export function usersInGeofence(store: Store, live: boolean, geofenceId: string, page: PageQuery): Page<UserRow> {
  return pageOf(usersInside(store, live, geofenceId, page), page.limit, 'updated_at')
}

async function* usersInside(store: Store, live: boolean, geofenceId: string, page: PageQuery): AsyncGenerator<UserRow[]> {
  const quoted = JSON.stringify(geofenceId)
  const users = withinCursors(store.db.selectFrom('users').where('live', '=', live ? 1 : 0), page)
    .select(['id', 'updated_at', sql<number>`instr(presence, ${quoted}) > 0`.as('inside')])
  for await (const window of newestFirst(users, Infinity, {sort: 'updated_at', id: 'id'}, SCAN_USERS)) {
    const ids = window.filter((u) => u.inside).map((u) => u.id)
    // read before the next turn of the event loop, so no write comes between the window and its rows
    if (ids.length) yield await store.db.selectFrom('users').selectAll().where('id', 'in', ids).orderBy('updated_at', 'desc').orderBy('id', 'desc').execute()
  }
}
