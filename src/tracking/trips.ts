import {CompiledQuery, type Updateable} from 'kysely'
import {refuse} from '../errors.js'
import {haversine} from '../geofences/confidence.js'
import type {Mode} from '../routing/profile.js'
import type {Routing} from '../routing/system.js'
import type {Fence} from '../geofences/fence.js'
import {geofenceEngine} from '../geofences/index.js'
import type {Settings} from '../project/settings.js'
import {newId} from '../store/ids.js'
import {newestRowSql} from '../store/newest.js'
import type {TripTable} from '../store/schema.js'
import type {Tx} from '../store/write.js'
import {destinationOf} from '../trips/destination.js'
import {TRIP_COLUMNS, type TripRow} from '../trips/json.js'
import {ACTIVE_STATUSES, OPEN_STATUSES} from '../trips/status.js'
import {approachingThreshold, destinationFence, orderDue} from '../trips/threshold.js'
import {addTripLocation, ownedBy} from '../trips/write.js'
import type {UserRow} from '../users/json.js'
import type {TrackInput} from './input.js'

/** An ETA between two points for a mode, or null where the source has no answer (no road graph). */
export type EtaSource = (from: [number, number], to: [number, number], mode: string) => {duration: number; distance: number} | null

/** DECISIONS: the straight-line fallback speeds, km/h. */
/** The routing engine as a trip ETA source: minutes and metres on the road graph (src/routing/system.ts). */
export const etaFromRouting = (routing: Routing): EtaSource =>
  (from, to, mode) => {
    const routed = routing.eta(from, to, mode as Mode)
    return routed && {duration: Math.round((routed.seconds / 60) * 100) / 100, distance: Math.round(routed.meters)}
  }

export const FALLBACK_KMH: Record<string, number> = {car: 50, bike: 15, foot: 5}

/** Minutes and metres to the destination: the routing source where it answers, else straight line. */
export function etaOf(from: [number, number], to: [number, number], mode: string, routing?: EtaSource): {duration: number; distance: number; source: string} {
  const routed = routing?.(from, to, mode)
  if (routed) return {...routed, source: 'routing'}
  const distance = Math.round(haversine(from[0], from[1], to[0], to[1]))
  const duration = Math.round((distance / 1000 / (FALLBACK_KMH[mode] ?? 50)) * 60 * 100) / 100
  return {duration, distance, source: 'straightLine'}
}

export interface TripStep {
  user: UserRow
  fix: {lng: number; lat: number; at: Date}
  /** Geofences entered by this track, and all the user is inside now. */
  entered: Fence[]
  inside: readonly Fence[]
  settings: Settings
  routing?: EtaSource
}

const env = (live: boolean) => (live ? 1 : 0)
const OPEN = `+status IN (${OPEN_STATUSES.map((s) => `'${s}'`).join(', ')})`
// every track asks (most users have none): with the statuses ORed rather than an IN list, the
// lookup opens no temporary b-tree (1.86 -> 1.30 µs, none found); the OR of the logged-in form
// below was slower as a newest-row query (5.8 µs) and stays as it is
const OPEN_ORED = `(${OPEN_STATUSES.map((s) => `+status = '${s}'`).join(' OR ')})`
const OPEN_TRIP_OF_USER = newestRowSql('trips', TRIP_COLUMNS, 'trips_user_ref', `user_ref = ? AND ${OPEN_ORED}`, 'user_ref')
const OPEN_TRIP_OF_USER_OR_ID = `SELECT * FROM trips WHERE (user_ref = ? OR (live = ? AND user_id = ? AND user_ref IS NULL)) AND ${OPEN} ORDER BY updated_at DESC LIMIT 1`

/**
 * The trip's automatic transitions for one track (DECISIONS, trips), inside the caller's write:
 * `tripOptions` names (and if need be creates) the trip; a pending trip starts (cancelling the
 * user's other active trip); every later track updates ETA, locations and delay; approaching at
 * the ETA threshold; arrived on entering (or being inside) the destination; wrong destination on
 * entering another geofence with the destination's tag. Returns the events; the trip row is
 * re-read by the caller for `user.trip`.
 */
export function moveTrip(tx: Tx, live: boolean, options: TrackInput['tripOptions'], step: TripStep): {events: Array<{type: string; trip: TripRow}>; trip?: TripRow} {
  const {db} = tx.store
  const {user, fix, settings} = step
  const at = fix.at.toISOString()
  let trip = options ? tripForOptions(tx, live, options, user, at) : undefined
  // the user's open trip, or one created for its userId before that user ever tracked
  trip ??= tx.get(CompiledQuery.raw(user.user_id ? OPEN_TRIP_OF_USER_OR_ID : OPEN_TRIP_OF_USER,
    user.user_id ? [user.id, env(live), user.user_id] : [user.id]))
  if (!trip) return {events: []}
  const events: Array<{type: string; trip: TripRow}> = []
  const set: Updateable<TripTable> = {updated_at: at, user_ref: user.id, ...ownedBy(trip, user)}
  if (trip.status === 'pending') {
    set.status = 'started'
    for (const other of tx.all(db.selectFrom('trips').select(['id', 'user_id']).where('user_ref', '=', user.id)
      .where('id', '!=', trip.id).where('status', 'in', ACTIVE_STATUSES))) {
      const ended = tx.get(db.updateTable('trips').set({status: 'canceled', completed_at: at, ended_at: at, updated_at: at, ...ownedBy(other, user)})
        .where('id', '=', other.id).returningAll())!
      events.push({type: 'user.stopped_trip', trip: ended})
    }
  }
  const status = set.status ?? trip.status
  const destination = destinationFence(geofenceEngine(tx.store), trip)
  const threshold = approachingThreshold(trip, destination, settings)
  if (orderDue(trip, threshold, fix.at.getTime())) set.order_fired_at = at
  if (trip.destination_lng !== null && trip.destination_lat !== null) {
    const eta = etaOf([fix.lng, fix.lat], [trip.destination_lng, trip.destination_lat], trip.mode, step.routing)
    Object.assign(set, {eta_duration: eta.duration, eta_distance: eta.distance, eta_source: eta.source})
    if (trip.scheduled_arrival_at) {
      const late = (fix.at.getTime() + eta.duration * 60_000 - Date.parse(trip.scheduled_arrival_at)) / 60_000
      set.scheduled_arrival_time_delay = Math.max(0, Math.round(late * 100) / 100)
      set.delayed = late > settings['trips.delayThreshold'] ? 1 : 0
    }
    if (destination && status !== 'arrived' && step.inside.some((f) => f.id === destination.id)) {
      Object.assign(set, {status: 'arrived', arrived_at: trip.arrived_at ?? at})
    } else if (status === 'started' && eta.duration <= threshold) {
      set.status = 'approaching'
    }
  }
  const updated = tx.get(db.updateTable('trips').set(set).where('id', '=', trip.id).returningAll())!
  addTripLocation(tx, trip.id, fix.lng, fix.lat, at)
  // each event carries the trip as it stood at its transition: a first fix already within the
  // threshold (or inside the destination) starts the trip before it approaches (or arrives)
  if (trip.status === 'pending') events.push({type: 'user.started_trip', trip: {...updated, status: 'started', arrived_at: trip.arrived_at}})
  else if (updated.status !== 'arrived' || trip.status !== 'arrived') events.push({type: 'user.updated_trip', trip: updated})
  if (updated.status === 'approaching' && trip.status !== 'approaching') events.push({type: 'user.approaching_trip_destination', trip: updated})
  if (updated.status === 'arrived' && trip.status !== 'arrived') events.push({type: 'user.arrived_at_trip_destination', trip: updated})
  if (trip.destination_geofence_tag !== null) {
    for (const fence of step.entered) {
      if (fence.tag === trip.destination_geofence_tag && fence.externalId !== trip.destination_geofence_external_id) {
        events.push({type: 'user.arrived_at_wrong_trip_destination', trip: updated})
      }
    }
  }
  return {events, trip: updated}
}

/**
 * The open trip `tripOptions` names, created pending for this user when there is none (compat).
 * Refused when that trip is another user's (a user has its own trips, DECISIONS), or when a new
 * trip's destination names no geofence; the destination of an existing trip is its own, so a
 * geofence deleted since does not refuse the tracks that follow.
 */
function tripForOptions(tx: Tx, live: boolean, options: NonNullable<TrackInput['tripOptions']>, user: UserRow, at: string): TripRow {
  const {db} = tx.store
  const open = tx.get(db.selectFrom('trips').selectAll().where('live', '=', env(live))
    .where('external_id', '=', options.externalId).where('status', 'in', OPEN_STATUSES))
  if (open && isOthers(tx, open, user)) {
    throw refuse.conflict('tripOptions.externalId', 'must not name a pending, started, approaching or arrived trip of another user')
  }
  if (open) return open
  const tag = options.destinationGeofenceTag ?? null
  const externalId = options.destinationGeofenceExternalId ?? null
  const center = destinationOf(tx, live, tag, externalId, 'tripOptions.')
  const row: TripRow = {
    id: newId(), live: env(live), external_id: options.externalId, user_ref: user.id, user_id: user.user_id,
    mode: options.mode ?? 'car', destination_geofence_tag: tag, destination_geofence_external_id: externalId,
    destination_lng: center?.[0] ?? null, destination_lat: center?.[1] ?? null,
    metadata: options.metadata ? JSON.stringify(options.metadata) : null,
    approaching_threshold: options.approachingThreshold ?? null, scheduled_arrival_at: options.scheduledArrivalAt ?? null,
    order_fired_at: null, arrived_at: null, completed_at: null, ended_at: null, status: 'pending',
    eta_duration: null, eta_distance: null, delayed: 0, scheduled_arrival_time_delay: null, eta_source: null,
    created_at: at, updated_at: at,
  }
  tx.run(db.insertInto('trips').values(row))
  return row
}

/** Whether a trip is another user's: its `userId` is another, or without one it is linked to another user that still exists. */
function isOthers(tx: Tx, trip: TripRow, user: UserRow): boolean {
  if (trip.user_id !== null) return trip.user_id !== user.user_id
  return trip.user_ref !== null && trip.user_ref !== user.id
    && tx.get(tx.store.db.selectFrom('users').select('id').where('id', '=', trip.user_ref)) !== undefined
}
