import {inForceAt, shareInside} from '../geofences/fence.js'
import {geofenceEngine} from '../geofences/index.js'
import {REGION_FIELDS, regionJson, regionsAt} from '../regions/index.js'
import {getSettings} from '../project/settings.js'
import type {TrackDeps} from './track.js'
import {placesAt} from './places.js'

/**
 * `GET /v1/context`: what a track at this point would see — the enabled geofences containing it
 * (none past `disableAfter` or `deleteAfter`), the place and regions — with nothing stored
 * (DECISIONS, compat). Regions are answered whatever `regions.enabled` says: asking is the point.
 */
export function contextAt({store, map}: TrackDeps, live: boolean, lng: number, lat: number): Record<string, unknown> {
  const now = Date.now()
  // past disableAfter or deleteAfter, as track judges it, before the expiry job carries it out
  const fences = geofenceEngine(store).near(live, lng, lat, 0)
    .filter((f) => inForceAt(f, now) && shareInside(f, lng, lat, 0) === 1)
    .sort((a, b) => (a.id < b.id ? -1 : 1))
  const answer: Record<string, unknown> = {
    geofences: fences.map((f) => f.summary),
    place: map ? (placesAt(map, lng, lat, getSettings(store, live))[0]?.json ?? null) : null,
  }
  const regions = regionsAt(lng, lat, map)
  for (const [type, field] of Object.entries(REGION_FIELDS)) {
    const region = regions.find((r) => r.type === type)
    answer[field] = region ? regionJson(region) : null
  }
  return answer
}
