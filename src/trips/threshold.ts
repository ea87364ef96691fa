import type {Fence} from '../geofences/fence.js'
import type {GeofenceEngine} from '../geofences/index.js'
import type {Settings} from '../project/settings.js'
import type {TripRow} from './json.js'

/**
 * The geofence a trip is headed to, from the engine's memory (no SQL, so a track can ask): undefined
 * without a destination, or when that geofence is disabled or gone since (as for arrival, tracking
 * then knows no such geofence).
 */
export function destinationFence(engine: GeofenceEngine, trip: Pick<TripRow, 'live' | 'destination_geofence_tag' | 'destination_geofence_external_id'>): Fence | undefined {
  const tag = trip.destination_geofence_tag, externalId = trip.destination_geofence_external_id
  return tag === null || externalId === null ? undefined : engine.keyed(trip.live === 1, tag, externalId)
}

/**
 * Minutes before arrival at which a trip is approaching (by ETA) and its order fires (by
 * `scheduledArrivalAt`): the trip's own, else its destination geofence's, else the project's
 * (DECISIONS, trips).
 */
export function approachingThreshold(trip: Pick<TripRow, 'approaching_threshold'>, destination: Fence | undefined, settings: Settings): number {
  return trip.approaching_threshold ?? destination?.tripApproachingThreshold ?? settings['trips.approachingThreshold']
}

/**
 * Whether a trip's order fires at `at` (epoch ms): it has a `scheduledArrivalAt`, its order has not
 * fired, and `at` has reached `scheduledArrivalAt` less `threshold` minutes (DECISIONS, trips).
 */
export function orderDue(trip: Pick<TripRow, 'scheduled_arrival_at' | 'order_fired_at'>, threshold: number, at: number): boolean {
  return trip.scheduled_arrival_at !== null && trip.order_fired_at === null && at >= Date.parse(trip.scheduled_arrival_at) - threshold * 60_000
}
