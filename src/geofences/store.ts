import {CompiledQuery, sql, type Insertable, type Kysely, type Selectable} from 'kysely'
import type {Database, GeofenceTable} from '../store/schema.js'
import {newId, nowIso} from '../store/ids.js'
import {fetchPage, type Page, type PageQuery} from '../store/paging.js'
import type {UserRow} from '../users/json.js'
import type {GeofenceInput} from './input.js'

export type GeofenceRow = Selectable<GeofenceTable>
type Db = Kysely<Database>

/** A geofence is referenced by `_id` or by `tag` plus `externalId`, always within one environment. */
export type GeofenceRef = {id: string} | {tag: string; externalId: string}

/** A create or update would give a second geofence the same `tag` and `externalId` in one environment. */
export class DuplicateGeofenceError extends Error {
  constructor(readonly tag: string | undefined, readonly externalId: string | undefined) {
    super(`a geofence with tag ${tag} and externalId ${externalId} already exists`)
  }
}

/** The columns an upsert writes: everything but `id`, `live` and `created_at`. */
function contentColumns(input: GeofenceInput, updatedAt: string) {
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

const isUniqueViolation = (error: unknown) => (error as {code?: string} | null)?.code === 'SQLITE_CONSTRAINT_UNIQUE'

async function guardUnique<T>(input: GeofenceInput, write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (isUniqueViolation(error)) throw new DuplicateGeofenceError(input.tag, input.externalId)
    throw error
  }
}

/** Creates a geofence; a `tag`+`externalId` pair that already exists throws DuplicateGeofenceError. */
export async function createGeofence(db: Db, live: boolean, input: GeofenceInput): Promise<GeofenceRow> {
  const content = contentColumns(input, nowIso())
  return guardUnique(input, () =>
    db.insertInto('geofences')
      .values({id: newId(), live: live ? 1 : 0, ...content, created_at: content.updated_at})
      .returningAll()
      .executeTakeFirstOrThrow())
}

/**
 * Creates or replaces the geofence with this `tag` and `externalId` in one statement (so two
 * concurrent upserts cannot both create). An update keeps `_id` and `createdAt`. The hottest write
 * (API and sync upserts), so its SQL is written once here instead of built per call.
 */
export async function upsertGeofenceByKey(db: Db, live: boolean, tag: string, externalId: string, input: GeofenceInput): Promise<GeofenceRow> {
  const content = contentColumns({...input, tag, externalId}, nowIso())
  const row: Insertable<GeofenceTable> = {id: newId(), live: live ? 1 : 0, ...content, created_at: content.updated_at}
  const params = UPSERT_COLUMNS.map((column) => row[column])
  const result = await db.executeQuery<GeofenceRow>(CompiledQuery.raw(UPSERT_SQL, params as unknown[]))
  return result.rows[0]
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

/** Replaces the geofence with this `_id`; null when there is none in this environment. */
export async function updateGeofenceById(db: Db, live: boolean, id: string, input: GeofenceInput): Promise<GeofenceRow | null> {
  const content = contentColumns(input, nowIso())
  const row = await guardUnique(input, () =>
    db.updateTable('geofences').set(content).where('id', '=', id).where('live', '=', live ? 1 : 0)
      .returningAll().executeTakeFirst())
  return row ?? null
}

export async function getGeofence(db: Db, live: boolean, ref: GeofenceRef): Promise<GeofenceRow | null> {
  const row = await byRef(db.selectFrom('geofences').selectAll(), live, ref).executeTakeFirst()
  return row ?? null
}

/** True when a geofence was deleted. Presence rows go with it (foreign key cascade). */
export async function deleteGeofence(db: Db, live: boolean, ref: GeofenceRef): Promise<boolean> {
  const result = await byRef(db.deleteFrom('geofences'), live, ref).executeTakeFirst()
  return result.numDeletedRows > 0n
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
export async function listGeofences(db: Db, live: boolean, page: PageQuery, filters: GeofenceFilters = {}): Promise<Page<GeofenceRow>> {
  let q = db.selectFrom('geofences').selectAll().where('live', '=', live ? 1 : 0)
  if (filters.tag !== undefined) q = q.where('tag', '=', filters.tag)
  if (filters.externalId !== undefined) q = q.where('external_id', '=', filters.externalId)
  for (const [key, value] of Object.entries(filters.metadata ?? {})) {
    q = q.where(sql<boolean>`exists (select 1 from json_each(geofences.metadata) m where m.key = ${key} and ${metadataMatch(value)})`)
  }
  return fetchPage(q, page, 'updated_at')
}

/** SQLite's json_each: `type` is true/false/integer/real/text, `value` the SQL value. */
function metadataMatch(value: string) {
  const asText = sql`(m.type = 'text' and m.value = ${value})`
  if (value === 'true' || value === 'false') return sql`(m.type = ${value} or ${asText})`
  if (value.trim() !== '' && Number.isFinite(Number(value))) {
    return sql`((m.type in ('integer', 'real') and m.value = ${Number(value)}) or ${asText})`
  }
  return asText
}

/** Users inside the geofence now (per `geofence_presence`), newest `updatedAt` first. */
export async function usersInGeofence(db: Db, live: boolean, geofenceId: string, page: PageQuery): Promise<Page<UserRow>> {
  const inside = db.selectFrom('geofence_presence').select('user_ref').where('geofence_id', '=', geofenceId)
  const q = db.selectFrom('users').selectAll().where('live', '=', live ? 1 : 0).where('id', 'in', inside)
  return fetchPage(q, page, 'updated_at')
}
