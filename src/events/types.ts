import {REGION_FIELDS} from '../regions/fields.js'

/** Every event type loc records: the spec's events table, the region events (DECISIONS) and conversions. */
export const EVENT_TYPES: readonly string[] = [
  'user.entered_geofence', 'user.exited_geofence', 'user.dwelled_in_geofence',
  'user.entered_place', 'user.exited_place', 'user.entered_beacon', 'user.exited_beacon',
  ...Object.keys(REGION_FIELDS).flatMap((type) => [`user.entered_region_${type}`, `user.exited_region_${type}`]),
  'user.started_trip', 'user.updated_trip', 'user.approaching_trip_destination', 'user.arrived_at_trip_destination',
  'user.arrived_at_wrong_trip_destination', 'user.stopped_trip', 'conversion',
]

const known = new Set(EVENT_TYPES)
export const isEventType = (type: string) => known.has(type)

/** What a list of event types (`events.types`, a webhook's `types`) is told of one it does not know. */
export const EVENT_TYPE_STATEMENT = `each must be an event type: ${EVENT_TYPES.join(', ')}`
