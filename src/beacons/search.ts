import {degreesAround, haversine} from '../geofences/confidence.js'
import {getSettings} from '../project/settings.js'
import type {Store} from '../store/db.js'
import {beaconJson, type BeaconRow} from './json.js'

/** DECISIONS: `GET /v1/search/beacons` answers enabled beacons within 1 km, for the SDK's ranging sync. */
export const BEACON_SEARCH_RADIUS = 1000

/** Enabled beacons of the environment within 1 km of lng/lat, nearest first, at most `limit`. */
export async function beaconsNear(store: Store, live: boolean, lng: number, lat: number, limit = 100): Promise<Array<Record<string, unknown>>> {
  const [dLng, dLat] = degreesAround(BEACON_SEARCH_RADIUS, lat)
  const rows = await store.db.selectFrom('beacons').selectAll()
    .where('live', '=', live ? 1 : 0).where('enabled', '=', 1)
    .where('lat', '>=', lat - dLat).where('lat', '<=', lat + dLat)
    .where('lng', '>=', lng - dLng).where('lng', '<=', lng + dLng).execute()
  return rows
    .map((row): [BeaconRow, number] => [row, haversine(lng, lat, row.lng, row.lat)])
    .filter(([, d]) => d <= BEACON_SEARCH_RADIUS)
    .sort((a, b) => a[1] - b[1])
    .slice(0, limit)
    .map(([row]) => beaconJson(row))
}

/**
 * What the SDKs range by regardless of coordinates (spec: Beacon ranging), as they read it from
 * `meta.settings.beacons` of `GET /v1/search/beacons`; empty lists: only the synced nearby beacons.
 */
export function beaconRanging(store: Store, live: boolean): {uuids: string[]; uids: string[]} {
  const settings = getSettings(store, live)
  return {uuids: settings['beacons.uuids'], uids: settings['beacons.uids']}
}
