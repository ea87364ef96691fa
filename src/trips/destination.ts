import {refuse} from '../errors.js'
import type {Tx} from '../store/write.js'

/**
 * A trip's destination: its geofence's `geometryCenter` as `[lng, lat]`, or undefined when the pair
 * is null. Refused when either half is missing or no geofence has both. `at` prefixes the params
 * (`tripOptions.` for a track).
 */
export function destinationOf(tx: Tx, live: boolean, tag: string | null, externalId: string | null, at = ''): [number, number] | undefined {
  if (tag === null && externalId === null) return undefined
  if (tag === null) throw refuse.invalid(`${at}destinationGeofenceTag`, 'required with destinationGeofenceExternalId')
  if (externalId === null) throw refuse.invalid(`${at}destinationGeofenceExternalId`, 'required with destinationGeofenceTag')
  const row = tx.get(tx.store.db.selectFrom('geofences').select(['center_lng', 'center_lat'])
    .where('live', '=', live ? 1 : 0).where('tag', '=', tag).where('external_id', '=', externalId))
  if (!row) throw refuse.invalid(`${at}destinationGeofenceExternalId`, `must name an existing geofence with tag "${tag}"`)
  return [row.center_lng, row.center_lat]
}
