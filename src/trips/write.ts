import {CompiledQuery, type Updateable} from 'kysely'
import {refuse} from '../errors.js'
import {recordEvents} from '../events/recorder.js'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import type {TripTable} from '../store/schema.js'
import {type Tx, writeGrouped} from '../store/write.js'
import {type UserRow, userJson} from '../users/json.js'
import {NEWEST_BY_USER_ID} from '../users/store.js'
import {destinationOf} from './destination.js'
import {type TripRow, tripJson} from './json.js'
import {findTripIn} from './read.js'
import {ACTIVE_STATUSES, ENDED_STATUSES, OPEN_STATUSES, STATUS_EVENTS, type TripStatus, type UpdateStatus} from './status.js'

export type TripMode = 'foot' | 'bike' | 'car'
export type TripMetadata = Record<string, string | number | boolean>

/** What create and update may set; `undefined` leaves a field alone, `null` clears it. */
export interface TripFields {
  mode?: TripMode
  destinationGeofenceTag?: string | null
  destinationGeofenceExternalId?: string | null
  approachingThreshold?: number | null
  scheduledArrivalAt?: string | null
  metadata?: TripMetadata | null
}

export interface NewTrip extends TripFields {
  externalId: string
  userId?: string | null
}

export interface TripUpdate extends TripFields {
  status?: UpdateStatus
}

const env = (live: boolean) => (live ? 1 : 0)

/** The destination columns of a pair; refused as `destinationOf` refuses. */
function destination(tx: Tx, live: boolean, tag: string | null, externalId: string | null): {lng: number | null; lat: number | null} {
  const center = destinationOf(tx, live, tag, externalId)
  return {lng: center?.[0] ?? null, lat: center?.[1] ?? null}
}

/**
 * Creates a `pending` trip. Its `externalId` must not belong to an open trip (pending, started,
 * approaching, arrived) of the environment; ended trips may share it.
 */
export function createTrip(store: Store, live: boolean, input: NewTrip): Promise<TripRow> {
  return writeGrouped(store, (tx) => {
    const user = input.userId ? tx.get<UserRow>(CompiledQuery.raw(NEWEST_BY_USER_ID, [env(live), input.userId])) : undefined
    const open = tx.get(store.db.selectFrom('trips').select('id')
      .where('live', '=', env(live)).where('external_id', '=', input.externalId).where('status', 'in', OPEN_STATUSES))
    if (open) throw refuse.conflict('externalId', 'must not belong to a pending, started, approaching or arrived trip')
    const dest = destination(tx, live, input.destinationGeofenceTag ?? null, input.destinationGeofenceExternalId ?? null)
    const now = nowIso()
    const row: TripRow = {
      id: newId(),
      live: env(live),
      external_id: input.externalId,
      user_ref: user?.id ?? null,
      user_id: input.userId ?? null,
      mode: input.mode ?? 'car',
      destination_geofence_tag: input.destinationGeofenceTag ?? null,
      destination_geofence_external_id: input.destinationGeofenceExternalId ?? null,
      destination_lng: dest.lng,
      destination_lat: dest.lat,
      metadata: input.metadata ? JSON.stringify(input.metadata) : null,
      approaching_threshold: input.approachingThreshold ?? null,
      scheduled_arrival_at: input.scheduledArrivalAt ?? null,
      order_fired_at: null,
      arrived_at: null,
      completed_at: null,
      ended_at: null,
      status: 'pending',
      eta_duration: null,
      eta_distance: null,
      delayed: 0,
      scheduled_arrival_time_delay: null,
      eta_source: null,
      created_at: now,
      updated_at: now,
    }
    tx.run(store.db.insertInto('trips').values(row))
    return row
  })
}

/**
 * Updates the trip a reference names. Without `status` the status stays (compat). A move into a
 * status stamps it (`arrivedAt`; `completedAt` and `endedAt` for completed and canceled), gives
 * the status's event when the trip has a user, and a move into `started` cancels the user's other
 * active trip. Undefined when there is no such trip.
 */
export function updateTrip(store: Store, live: boolean, ref: string, input: TripUpdate): Promise<TripRow | undefined> {
  return writeGrouped(store, (tx) => {
    // read in the write: a track may have moved the trip since the request arrived
    const trip = findTripIn(tx, live, ref)
    if (!trip) return undefined
    const set: Updateable<TripTable> = {updated_at: nowIso()}
    if (input.mode !== undefined) set.mode = input.mode
    if (input.approachingThreshold !== undefined) set.approaching_threshold = input.approachingThreshold
    if (input.scheduledArrivalAt !== undefined) set.scheduled_arrival_at = input.scheduledArrivalAt
    if (input.metadata !== undefined) set.metadata = input.metadata ? JSON.stringify(input.metadata) : null
    if (input.destinationGeofenceTag !== undefined || input.destinationGeofenceExternalId !== undefined) {
      const tag = input.destinationGeofenceTag === undefined ? trip.destination_geofence_tag : input.destinationGeofenceTag
      const externalId = input.destinationGeofenceExternalId === undefined ? trip.destination_geofence_external_id : input.destinationGeofenceExternalId
      const dest = destination(tx, live, tag, externalId)
      Object.assign(set, {destination_geofence_tag: tag, destination_geofence_external_id: externalId, destination_lng: dest.lng, destination_lat: dest.lat})
    }
    const moved = input.status !== undefined && input.status !== trip.status ? input.status : undefined
    if (moved) Object.assign(set, statusStamps(trip, moved, set.updated_at!))
    // read once: for a move's events, and to give a trip its device's userId (a trip a logged-out
    // device took, the device logged in since)
    const user = trip.user_ref !== null && (moved || trip.user_id === null)
      ? tx.get(store.db.selectFrom('users').selectAll().where('id', '=', trip.user_ref)) : undefined
    if (user) Object.assign(set, ownedBy(trip, user))
    const updated = tx.get(store.db.updateTable('trips').set(set).where('id', '=', trip.id).returningAll())!
    if (moved && user) afterMove(tx, live, updated, user)
    return updated
  })
}

/**
 * The stamps of a move into `status`: ending stamps completedAt/endedAt and keeps arrivedAt; an open
 * status clears those two, and arrivedAt too unless it is `arrived` (stamped when not yet).
 */
function statusStamps(trip: TripRow, status: TripStatus, now: string): Updateable<TripTable> {
  if (ENDED_STATUSES.includes(status)) return {status, completed_at: now, ended_at: now}
  return {status, completed_at: null, ended_at: null, arrived_at: status === 'arrived' ? (trip.arrived_at ?? now) : null}
}

/** The events of a status move of `user`'s trip, and the one-active-trip-per-user rule. */
function afterMove(tx: Tx, live: boolean, trip: TripRow, user: UserRow): void {
  const {db} = tx.store
  const moves: TripRow[] = [trip]
  if (trip.status === 'started') {
    const others = tx.all(db.selectFrom('trips').select(['id', 'user_id'])
      .where('user_ref', '=', user.id).where('id', '!=', trip.id).where('status', 'in', ACTIVE_STATUSES))
    for (const other of others) {
      const now = nowIso()
      moves.push(tx.get(db.updateTable('trips').set({status: 'canceled', completed_at: now, ended_at: now, updated_at: now, ...ownedBy(other, user)})
        .where('id', '=', other.id).returningAll())!)
    }
  }
  const body = userJson(user, tx.store)
  const events = moves.flatMap((t) => {
    const type = STATUS_EVENTS[t.status as TripStatus]
    return type ? [{type, userRef: user.id, userId: user.user_id, body: {user: body, trip: tripJson(t, user)}}] : []
  })
  recordEvents(tx, live, events)
}

/**
 * A trip without a `userId` that a logged-in user moves (its track, or a change to a trip its
 * device took while logged out) becomes that `userId`'s, stored, so reads, lists by `userId`,
 * events and webhooks show it (docs/api/tracking.md). A logged-out user leaves it null. Set only
 * when it changes: SET rewrites the trip's userId index.
 */
export function ownedBy(trip: Pick<TripRow, 'user_id'>, user: UserRow): Updateable<TripTable> {
  return trip.user_id === null && user.user_id !== null ? {user_id: user.user_id} : {}
}

/** Deletes the trip a reference names, with its locations; false when there is none. */
export function deleteTrip(store: Store, live: boolean, ref: string): Promise<boolean> {
  return writeGrouped(store, (tx) => {
    const trip = findTripIn(tx, live, ref)
    return trip ? tx.run(store.db.deleteFrom('trips').where('id', '=', trip.id)) > 0 : false
  })
}

/** Appends a travelled point (track calls this for the user's active trip). */
export function addTripLocation(tx: Tx, tripId: string, lng: number, lat: number, updatedAt: string): void {
  tx.run(tx.store.db.insertInto('trip_locations').values({trip_id: tripId, lng, lat, updated_at: updatedAt}))
}
