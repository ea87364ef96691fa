import {sql} from 'kysely'
import type {Store} from '../store/db.js'
import {tripJson} from '../trips/json.js'
import {ACTIVE_STATUSES} from '../trips/status.js'
import {type UserRow, usersJsonNow} from './json.js'

/**
 * Users as the API returns them, each with its `trip` read from the trips table while that trip is
 * started, approaching or arrived (spec), so status changes made through the trips API show at once.
 * A page costs one trips query and one beacons query, whatever its size.
 */
export async function usersJson(store: Store, rows: UserRow[]): Promise<Record<string, unknown>[]> {
  const trips = new Map<string, Record<string, unknown>>()
  if (rows.length) {
    // `+status` keeps SQLite on the user_ref index: on status (trips_status_updated) it would
    // walk every active trip of the project (37 ms for a page of 100 users among 100,000)
    const active = await store.db.selectFrom('trips').selectAll()
      .where('user_ref', 'in', rows.map((r) => r.id))
      .where(sql<boolean>`+status in (${sql.join(ACTIVE_STATUSES)})`)
      .orderBy('updated_at', 'asc').execute()
    for (const trip of active) {
      const {user: _user, userId: _userId, ...json} = tripJson(trip)
      trips.set(trip.user_ref!, json)
    }
  }
  const users = usersJsonNow(store, rows)
  return rows.map((row, i) => {
    const json = users[i]
    const trip = trips.get(row.id)
    if (trip) json.trip = trip
    else delete json.trip
    return json
  })
}
