import {refuse} from '../errors.js'
import type {Tx} from '../store/write.js'

/** The half of a destination pair that is missing while the other is given, as a field and why; undefined when both or neither are. */
export function halfMissing(tag: string | null, externalId: string | null): {field: string; statement: string} | undefined {
  if (tag === null && externalId !== null) return {field: 'destinationGeofenceTag', statement: 'required with destinationGeofenceExternalId'}
  if (tag !== null && externalId === null) return {field: 'destinationGeofenceExternalId', statement: 'required with destinationGeofenceTag'}
  return undefined
}

/**
 * A trip's destination: its geofence's `geometryCenter` as `[lng, lat]`, or undefined when the pair
 * is null. Refused when either half is missing or no geofence has both. `at` prefixes the params
 * (`tripOptions.` for a track).
 */
export function destinationOf(tx: Tx, live: boolean, tag: string | null, externalId: string | null, at = ''): [number, number] | undefined {
  const missing = halfMissing(tag, externalId)
  if (missing) throw refuse.invalid(`${at}${missing.field}`, missing.statement)
  if (tag === null || externalId === null) return undefined
  const row = tx.get(tx.store.db.selectFrom('geofences').select(['center_lng', 'center_lat'])
    .where('live', '=', live ? 1 : 0).where('tag', '=', tag).where('external_id', '=', externalId))
  if (!row) throw refuse.invalid(`${at}destinationGeofenceExternalId`, `must name an existing geofence with tag "${tag}"`)
  return [row.center_lng, row.center_lat]
}
