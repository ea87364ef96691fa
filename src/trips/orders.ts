import {sql} from 'kysely'
import {geofenceEngine} from '../geofences/index.js'
import type {Job} from '../jobs/index.js'
import {getSettings} from '../project/settings.js'
import type {Store} from '../store/db.js'
import {writeGrouped} from '../store/write.js'
import {OPEN_STATUSES} from './status.js'
import {approachingThreshold, destinationFence, orderDue} from './threshold.js'

/**
 * When a trip's order is due as far as its row knows: its scheduled arrival (julian day) less its
 * own threshold. Index trips_order_due (migration 017) holds this very expression.
 */
const ROW_DUE = sql<number>`julianday(scheduled_arrival_at) - coalesce(approaching_threshold, 0) / 1440.0`
/** Slack for julianday's floating point (~50 µs): the read may take a trip a second early, never miss one. */
const SLACK_DAYS = 1 / 86_400

/**
 * The unfired open trips with a scheduled arrival whose order can be due at `at` (epoch ms): due
 * (ROW_DUE) within `largest` minutes of it, `largest` being at least any threshold a destination
 * geofence or the project can give a trip without its own. A superset: orderDue decides each.
 */
export function mayBeDue(store: Store, live: boolean, at: number, largest: number) {
  return store.db.selectFrom('trips')
    .select(['id', 'live', 'approaching_threshold', 'scheduled_arrival_at', 'order_fired_at', 'destination_geofence_tag', 'destination_geofence_external_id'])
    .where('live', '=', live ? 1 : 0).where('status', 'in', OPEN_STATUSES)
    .where('order_fired_at', 'is', null).where('scheduled_arrival_at', 'is not', null)
    .where(ROW_DUE, '<=', at / 86_400_000 + 2_440_587.5 + largest / 1440 + SLACK_DAYS)
}

/**
 * Fires the orders that came due with no track to fire them (a device gone quiet, a trip not yet
 * started): open trips (pending, started, approaching, arrived, as a track fires them) whose
 * `scheduledArrivalAt` less their approaching threshold is past get `orderFiredAt` = `now`, once.
 * No event (the spec has none for it), and `updatedAt` stays: it is the last location update.
 * Returns how many fired. Through group commit, as the expiry job.
 */
export async function fireOrders(store: Store, now: Date): Promise<number> {
  const {db} = store
  const at = now.getTime(), stamp = now.toISOString()
  let fired = 0
  // built (its first build blocks) and caught up here, not inside the write holding the lock
  const engine = geofenceEngine(store)
  for (const live of [false, true]) {
    const settings = getSettings(store, live)
    // a walk of every keyed geofence (~1 ms at 100k): outside the write
    const largest = Math.max(settings['trips.approachingThreshold'], engine.largestTripApproachingThreshold(live))
    fired += await writeGrouped(store, (tx) => {
      const waiting = tx.all(mayBeDue(store, live, at, largest))
      const due = waiting.filter((trip) => orderDue(trip, approachingThreshold(trip, destinationFence(engine, trip), settings), at))
      if (due.length) tx.run(db.updateTable('trips').set({order_fired_at: stamp}).where('id', 'in', due.map((trip) => trip.id)))
      return due.length
    })
  }
  return fired
}

export const tripOrderJob: Job = {
  name: 'trip-orders',
  everyMs: 60_000,
  async run({store}, now) {
    const fired = await fireOrders(store, now)
    return fired ? {fired} : undefined
  },
}
