import type {Tx} from '../store/write.js'

/** The destination geofence's `geometryCenter` as `[lng, lat]`, or undefined when no such geofence exists. */
export function destinationOf(tx: Tx, live: boolean, tag: string, externalId: string): [number, number] | undefined {
  const row = tx.get(tx.store.db.selectFrom('geofences').select(['center_lng', 'center_lat'])
    .where('live', '=', live ? 1 : 0).where('tag', '=', tag).where('external_id', '=', externalId))
  return row && [row.center_lng, row.center_lat]
}
