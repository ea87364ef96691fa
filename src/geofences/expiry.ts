import type {Job} from '../jobs/index.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'

/**
 * Carries out `disableAfter` (`enabled` becomes false; it stays so while `disableAfter` is past, so
 * re-enabling means an upsert with a later or no `disableAfter`) and `deleteAfter` (the geofence
 * and its presence rows go). Each disabled row gets its own `updatedAt` so list cursors stay exact.
 */
export async function expireGeofences(store: Store, now: Date): Promise<{disabled: number; deleted: number}> {
  const at = now.toISOString()
  return store.db.transaction().execute(async (trx) => {
    const deleted = await trx.deleteFrom('geofences').where('delete_after', '<=', at).executeTakeFirst()
    const due = await trx.selectFrom('geofences').select('id')
      .where('enabled', '=', 1).where('disable_after', '<=', at).execute()
    for (const {id} of due) await trx.updateTable('geofences').set({enabled: 0, updated_at: nowIso()}).where('id', '=', id).execute()
    return {disabled: due.length, deleted: Number(deleted.numDeletedRows)}
  })
}

export const geofenceExpiryJob: Job = {
  name: 'geofence-expiry',
  everyMs: 10_000,
  async run(store, now) {
    const result = await expireGeofences(store, now)
    return result.disabled || result.deleted ? result : undefined
  },
}
