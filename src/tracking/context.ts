import {geofenceEngine, shareInside} from '../geofences/index.js'
import {countryAt} from '../regions/index.js'
import type {Store} from '../store/db.js'

/**
 * `GET /v1/context`: what a track at this point would see — the enabled geofences containing it,
 * the place and regions — with nothing stored (DECISIONS, compat). Regions are answered whatever
 * `regions.enabled` says: asking is the point of the call.
 */
export function contextAt(store: Store, live: boolean, lng: number, lat: number): Record<string, unknown> {
  const fences = geofenceEngine(store).near(live, lng, lat, 0)
    .filter((f) => shareInside(f, lng, lat, 0) === 1)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
  const country = countryAt(lng, lat)
  return {
    geofences: fences.map((f) => f.summary),
    place: null,
    country: country ? {code: country.code, name: country.name, flag: country.flag} : null,
    state: null,
    dma: null,
    postalCode: null,
  }
}
