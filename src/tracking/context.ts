import {geofenceEngine, shareInside} from '../geofences/index.js'
import {countryAt} from '../regions/index.js'
import {getSettings} from '../project/settings.js'
import type {TrackDeps} from './track.js'
import {placesAt} from './places.js'

/**
 * `GET /v1/context`: what a track at this point would see — the enabled geofences containing it,
 * the place and regions — with nothing stored (DECISIONS, compat). Regions are answered whatever
 * `regions.enabled` says: asking is the point of the call.
 */
export function contextAt({store, map}: TrackDeps, live: boolean, lng: number, lat: number): Record<string, unknown> {
  const fences = geofenceEngine(store).near(live, lng, lat, 0)
    .filter((f) => shareInside(f, lng, lat, 0) === 1)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
  const country = countryAt(lng, lat)
  return {
    geofences: fences.map((f) => f.summary),
    place: map ? (placesAt(map, lng, lat, getSettings(store, live))[0]?.json ?? null) : null,
    country: country ? {code: country.code, name: country.name, flag: country.flag} : null,
    state: null,
    dma: null,
    postalCode: null,
  }
}
