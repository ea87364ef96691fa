import {sql} from 'kysely'
import type {Store} from '../store/db.js'
import {fetchMergedPage, fetchPage, type Page, type PageQuery} from '../store/paging.js'
import type {Tx} from '../store/write.js'
import type {UserRow} from '../users/json.js'
import {type TripLocationRow, type TripRow, tripJson} from './json.js'
import type {TripStatus} from './status.js'

const env = (live: boolean) => (live ? 1 : 0)

/**
 * The trip a reference names: its `_id`, else its `externalId`. An `externalId` may be shared by
 * an ended trip and a newer one; the newest wins.
 */
export async function findTrip(store: Store, live: boolean, ref: string): Promise<TripRow | undefined> {
  const [byId, byExternalId] = tripRefQueries(store, live, ref)
  return (await byId.executeTakeFirst()) ?? byExternalId.executeTakeFirst()
}

/** `findTrip` inside a write, so what the write decides from the trip cannot be stale. */
export function findTripIn(tx: Tx, live: boolean, ref: string): TripRow | undefined {
  const [byId, byExternalId] = tripRefQueries(tx.store, live, ref)
  return tx.get(byId) ?? tx.get(byExternalId)
}

function tripRefQueries(store: Store, live: boolean, ref: string) {
  const trips = store.db.selectFrom('trips').selectAll().where('live', '=', env(live))
  return [trips.where('id', '=', ref), trips.where('external_id', '=', ref).orderBy('created_at', 'desc').orderBy('id', 'desc').limit(1)] as const
}

export interface TripFilters {
  status?: TripStatus[]
  destinationGeofenceTag?: string
  destinationGeofenceExternalId?: string
  externalId?: string[]
  /** The user's `userId` (or `_id`). */
  userId?: string
  delayed?: boolean
  sortBy: 'createdAt' | 'updatedAt'
}

type TripIndex = 'trips_live_user_id' | 'trips_user_ref' | 'trips_live_ext' | 'trips_status_updated'

/**
 * A filtered list reads through the index of its most selective filter, named: left to choose,
 * SQLite has no statistics and walks every trip in the page's order, testing each (34 ms a page
 * among 100k trips for one user's, a whole walk whenever fewer trips match than a page holds).
 */
const tripsThrough = (store: Store, index?: TripIndex) =>
  store.db.selectFrom(index ? (sql`trips INDEXED BY ${sql.raw(index)}` as unknown as 'trips') : 'trips')

/**
 * Newest first by `sortBy`. With a `userId`, the user's trips (by userId, and by `_id`), else with
 * `externalId`s the trips of each, else with `status`es in `updatedAt` order each status's trips,
 * newest first in its index: each read as its own branch and the branches merged.
 */
export function listTrips(store: Store, live: boolean, filters: TripFilters, page: PageQuery): Page<TripRow> {
  const trips = (index?: TripIndex) => {
    let q = tripsThrough(store, index).selectAll().where('live', '=', env(live))
    if (filters.status?.length) q = q.where('status', 'in', filters.status)
    if (filters.destinationGeofenceTag !== undefined) q = q.where('destination_geofence_tag', '=', filters.destinationGeofenceTag)
    if (filters.destinationGeofenceExternalId !== undefined) q = q.where('destination_geofence_external_id', '=', filters.destinationGeofenceExternalId)
    if (filters.externalId?.length) q = q.where('external_id', 'in', filters.externalId)
    if (filters.delayed !== undefined) q = q.where('delayed', '=', filters.delayed ? 1 : 0)
    return q
  }
  const sortBy = filters.sortBy === 'createdAt' ? 'created_at' : 'updated_at'
  const {userId, externalId, status} = filters
  if (userId !== undefined) {
    return fetchMergedPage([
      trips('trips_live_user_id').where('user_id', '=', userId),
      trips('trips_user_ref').where('user_ref', '=', userId).where((eb) => eb.or([eb('user_id', 'is', null), eb('user_id', '!=', userId)])),
    ], page, sortBy)
  }
  if (externalId?.length) return fetchMergedPage([...new Set(externalId)].map((id) => trips('trips_live_ext').where('external_id', '=', id)), page, sortBy)
  // (status, live, updated_at) keeps each status's trips in updatedAt order: a page of the few
  // active trips among many ended ones reads those alone
  if (status?.length && sortBy === 'updated_at') return fetchMergedPage([...new Set(status)].map((s) => trips('trips_status_updated').where('status', '=', s)), page, sortBy)
  return fetchPage(trips(), page, sortBy)
}

/** Travelled points of each trip, oldest first. */
export async function tripLocations(store: Store, tripIds: string[]): Promise<Map<string, TripLocationRow[]>> {
  const byTrip = new Map<string, TripLocationRow[]>(tripIds.map((id) => [id, []]))
  if (!tripIds.length) return byTrip
  const rows = await store.db.selectFrom('trip_locations').selectAll()
    .where('trip_id', 'in', tripIds).orderBy('updated_at').orderBy('id').execute()
  for (const row of rows) byTrip.get(row.trip_id)!.push(row)
  return byTrip
}

/** Trips as the API returns them: with their user's `{_id, userId, deviceId}` and, if asked, their locations. */
export async function tripsJson(store: Store, rows: TripRow[], options: {locations: boolean}): Promise<Record<string, unknown>[]> {
  const refs = [...new Set(rows.map((r) => r.user_ref).filter((r): r is string => r !== null))]
  const users = new Map<string, Pick<UserRow, 'id' | 'user_id' | 'device_id'>>()
  if (refs.length) {
    for (const u of await store.db.selectFrom('users').select(['id', 'user_id', 'device_id']).where('id', 'in', refs).execute()) users.set(u.id, u)
  }
  const locations = options.locations ? await tripLocations(store, rows.map((r) => r.id)) : undefined
  return rows.map((row) => tripJson(row, row.user_ref ? users.get(row.user_ref) : undefined, locations?.get(row.id)))
}
