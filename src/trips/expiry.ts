import type {Job} from '../jobs/index.js'
import {getSettings} from '../project/settings.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {EXPIRABLE_STATUSES} from './status.js'

/**
 * Moves pending, started and approaching trips that saw no update for `trips.expireAfterHours`
 * (per environment) to `expired`, stamping `endedAt`. Returns how many expired.
 */
export async function expireTrips(store: Store, now: Date): Promise<number> {
  let expired = 0
  for (const live of [false, true]) {
    const hours = getSettings(store, live)['trips.expireAfterHours']
    const cutoff = new Date(now.getTime() - hours * 3_600_000).toISOString()
    await store.db.transaction().execute(async (trx) => {
      const due = await trx.selectFrom('trips').select('id')
        .where('live', '=', live ? 1 : 0).where('status', 'in', EXPIRABLE_STATUSES).where('updated_at', '<', cutoff)
        .execute()
      // One stamp per row: list cursors (`updatedBefore`) rely on updatedAt never repeating.
      for (const {id} of due) {
        const stamp = nowIso()
        await trx.updateTable('trips').set({status: 'expired', ended_at: stamp, updated_at: stamp}).where('id', '=', id).execute()
      }
      expired += due.length
    })
  }
  return expired
}

export const tripExpiryJob: Job = {
  name: 'trip-expiry',
  everyMs: 60_000,
  async run(store, now) {
    const expired = await expireTrips(store, now)
    return expired ? {expired} : undefined
  },
}
