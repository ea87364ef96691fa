import type {Selectable} from 'kysely'
import type {TripLocationTable, TripTable} from '../store/schema.js'
import type {UserRow} from '../users/json.js'
import {userRefJson} from '../users/json.js'

export type TripRow = Selectable<TripTable>

/** The trips table's columns, in its order (as `SELECT *` returns them). */
export const TRIP_COLUMNS = ['id', 'live', 'external_id', 'user_ref', 'user_id', 'mode', 'destination_geofence_tag', 'destination_geofence_external_id',
  'destination_lng', 'destination_lat', 'metadata', 'approaching_threshold', 'scheduled_arrival_at', 'order_fired_at', 'arrived_at', 'completed_at',
  'ended_at', 'status', 'eta_duration', 'eta_distance', 'delayed', 'scheduled_arrival_time_delay', 'created_at', 'updated_at', 'eta_source'] as const satisfies ReadonlyArray<keyof TripRow>
// every column of TripRow is listed: a column added to the table and not here fails to compile
const everyTripColumn: [Exclude<keyof TripRow, (typeof TRIP_COLUMNS)[number]>] extends [never] ? true : never = true
void everyTripColumn
export type TripLocationRow = Selectable<TripLocationTable>

const point = (lng: number, lat: number) => ({type: 'Point', coordinates: [lng, lat]})

/**
 * The spec's Trip resource. Timestamps that have not happened yet (`arrivedAt`, ...) and an
 * unknown `eta` are left out; `userId` is null for a trip without a user or a logged-out device's.
 * `locations` appears only when given (get, create, update; lists with `includeLocations`).
 */
export function tripJson(row: TripRow, user?: Pick<UserRow, 'id' | 'user_id' | 'device_id'>, locations?: TripLocationRow[]): Record<string, unknown> {
  const optional: Record<string, unknown> = {
    destinationGeofenceTag: row.destination_geofence_tag,
    destinationGeofenceExternalId: row.destination_geofence_external_id,
    destinationLocation: row.destination_lng === null || row.destination_lat === null ? null : point(row.destination_lng, row.destination_lat),
    eta: row.eta_duration === null ? null : {duration: row.eta_duration, distance: row.eta_distance, ...(row.eta_source ? {source: row.eta_source} : {})},
    approachingThreshold: row.approaching_threshold,
    scheduledArrivalAt: row.scheduled_arrival_at,
    orderFiredAt: row.order_fired_at,
    arrivedAt: row.arrived_at,
    completedAt: row.completed_at,
    endedAt: row.ended_at,
    user: user ? userRefJson(user) : null,
  }
  return {
    _id: row.id,
    live: row.live === 1,
    externalId: row.external_id,
    metadata: row.metadata ? JSON.parse(row.metadata) : {},
    mode: row.mode,
    ...Object.fromEntries(Object.entries(optional).filter(([, v]) => v !== null)),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    status: row.status,
    userId: row.user_id,
    delay: {delayed: row.delayed === 1, scheduledArrivalTimeDelay: row.scheduled_arrival_time_delay ?? 0},
    ...(locations ? {locations: locations.map((l) => ({...point(l.lng, l.lat), updatedAt: l.updated_at}))} : {}),
  }
}
