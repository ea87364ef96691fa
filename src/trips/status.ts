/** Every trip status, in lifecycle order. */
export const TRIP_STATUSES = ['pending', 'started', 'approaching', 'arrived', 'expired', 'completed', 'canceled'] as const
export type TripStatus = (typeof TRIP_STATUSES)[number]

/** What `PATCH .../update` may set: only the expiry job sets `expired`. */
export const UPDATE_STATUSES = ['pending', 'started', 'approaching', 'arrived', 'completed', 'canceled'] as const
export type UpdateStatus = (typeof UPDATE_STATUSES)[number]

/** An `externalId` held by a trip in these is taken: creating another is a conflict (DECISIONS). */
export const OPEN_STATUSES: readonly TripStatus[] = ['pending', 'started', 'approaching', 'arrived']

/** Under way: the trip shows on its user and a user has at most one such trip. */
export const ACTIVE_STATUSES: readonly TripStatus[] = ['started', 'approaching', 'arrived']

/** Expire when no update comes for `trips.expireAfterHours`. */
export const EXPIRABLE_STATUSES: readonly TripStatus[] = ['pending', 'started', 'approaching']

export const ENDED_STATUSES: readonly TripStatus[] = ['completed', 'canceled']

/** The event a move into a status gives (DECISIONS, trips). */
export const STATUS_EVENTS: Partial<Record<TripStatus, string>> = {
  started: 'user.started_trip',
  approaching: 'user.approaching_trip_destination',
  arrived: 'user.arrived_at_trip_destination',
  completed: 'user.stopped_trip',
  canceled: 'user.stopped_trip',
}
