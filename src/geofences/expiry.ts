import type {Job} from '../jobs/index.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {writeGrouped} from '../store/write.js'

/**
 * Carries out `disableAfter` (`enabled` becomes false; it stays so while `disableAfter` is past, so
 * re-enabling means an upsert with a later or no `disableAfter`) and `deleteAfter` (the geofence
 * and its presence rows go). Each disabled row gets its own `updatedAt` so list cursors stay exact.
 * Through group commit, so a run that finds the store locked by another process waits without
 * stalling requests.
 */
export function expireGeofences(store: Store, now: Date): Promise<{disabled: number; deleted: number}> {
  const at = now.toISOString()
  const {db} = store
  return writeGrouped(store, (tx) => {
    const deleted = tx.run(db.deleteFrom('geofences').where('delete_after', '<=', at))
    const due = tx.all(db.selectFrom('geofences').select('id').where('enabled', '=', 1).where('disable_after', '<=', at))
    for (const {id} of due) tx.run(db.updateTable('geofences').set({enabled: 0, updated_at: nowIso()}).where('id', '=', id))
    return {disabled: due.length, deleted}
  })
}

export const geofenceExpiryJob: Job = {
  name: 'geofence-expiry',
  everyMs: 10_000,
  async run({store}, now) {
    const result = await expireGeofences(store, now)
    return result.disabled || result.deleted ? result : undefined
  },
}
