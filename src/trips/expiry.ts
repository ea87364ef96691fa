import type {Job} from '../jobs/index.js'
import {getSettings} from '../project/settings.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {writeGrouped} from '../store/write.js'
import {EXPIRABLE_STATUSES} from './status.js'

/**
 * Moves pending, started and approaching trips that saw no update for `trips.expireAfterHours`
 * (per environment) to `expired`, stamping `endedAt`. Returns how many expired. Through group commit,
 * so a run that finds the store locked by another process waits without stalling requests.
 */
export async function expireTrips(store: Store, now: Date): Promise<number> {
  const {db} = store
  let expired = 0
  for (const live of [false, true]) {
    const hours = getSettings(store, live)['trips.expireAfterHours']
    const cutoff = new Date(now.getTime() - hours * 3_600_000).toISOString()
    expired += await writeGrouped(store, (tx) => {
      const due = tx.all(db.selectFrom('trips').select('id')
        .where('live', '=', live ? 1 : 0).where('status', 'in', EXPIRABLE_STATUSES).where('updated_at', '<', cutoff))
      // One stamp per row: list cursors (`updatedBefore`) rely on updatedAt never repeating.
      for (const {id} of due) {
        const stamp = nowIso()
        tx.run(db.updateTable('trips').set({status: 'expired', ended_at: stamp, updated_at: stamp}).where('id', '=', id))
      }
      return due.length
    })
  }
  return expired
}

export const tripExpiryJob: Job = {
  name: 'trip-expiry',
  everyMs: 60_000,
  async run({store}, now) {
    const expired = await expireTrips(store, now)
    return expired ? {expired} : undefined
  },
}
