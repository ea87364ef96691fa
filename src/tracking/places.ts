import {haversine, pointInRing} from '../osm/geom.js'
import {footprintParts} from '../places/footprint.js'
import {type MapData, mayHold} from '../map/index.js'
import {placeIndex} from '../places/index.js'
import {placeRows, placeShaper, type ShownPlace} from '../places/json.js'
import type {Settings} from '../project/settings.js'

/** DECISIONS: a point POI is entered within 50 m. */
export const PLACE_RADIUS = 50
/** How far around the fix area POIs are looked for (their point is inside the footprint). */
const SEARCH_RADIUS = 300

export interface PlaceHit extends ShownPlace {
  category: string
}

/** Whether lng/lat is inside a footprint: inside an outer ring, not in its holes. */
function insideFootprint(footprint: string, lng: number, lat: number): boolean {
  const inside = (ring: [number, number][]) => pointInRing(lng, lat, ring.flat())
  return footprintParts(footprint).some(([outer, ...holes]) => inside(outer) && !holes.some(inside))
}

/**
 * The imported POIs the fix is at (DECISIONS): inside an area POI's footprint, or within 50 m of a
 * point POI; footprints first, then nearest first. Each as the API's Place, with `chain.externalId`
 * and `chain.metadata` from `places.chainMappings` / `places.chainMetadata`.
 */
export function placesAt(map: MapData, lng: number, lat: number, settings: Settings): PlaceHit[] {
  const hits: Array<PlaceHit & {rank: number}> = []
  const shape = placeShaper(map, settings)
  for (const region of map.regions()) {
    if (!mayHold(region, lng, lat)) continue
    const index = placeIndex(map, region.name)
    const db = map.db(region.name)
    if (!index || !db) continue
    const ids = index.at(lng, lat, PLACE_RADIUS, SEARCH_RADIUS)
    if (ids.length === 0) continue
    for (const row of placeRows(db, ids)) {
      const d = haversine(lng, lat, row.lon, row.lat)
      const rank = row.footprint ? (insideFootprint(row.footprint, lng, lat) ? d - 1e6 : Infinity) : d <= PLACE_RADIUS ? d : Infinity
      if (rank === Infinity) continue
      hits.push({rank, category: row.category, ...shape(row)})
    }
  }
  return hits.sort((a, b) => a.rank - b.rank).map(({rank: _r, ...hit}) => hit)
}

/** `places.placeFilters`: with chains or categories listed, only matching places give events. */
export function passesFilters(hit: {category: string; chainSlug: string | null}, settings: Settings): boolean {
  const {chain, category} = settings['places.placeFilters']
  if (!chain?.length && !category?.length) return true
  return (!!hit.chainSlug && !!chain?.includes(hit.chainSlug)) || !!category?.includes(hit.category)
}

/** A chain on `user.topChains`: what the spec shows, and how many visits put it there. */
export interface ChainVisits {
  name: string
  slug: string
  externalId?: string
  visits: number
}

/** How many chains `user.topChains` keeps. */
const TOP_CHAINS = 10

/**
 * `user.topChains` after a visit to a place of `chain` (DECISIONS is silent; docs/api/tracking.md):
 * the chains whose places the user entered, most visits first, the latest visit first among equals.
 */
export function withVisit(top: readonly ChainVisits[], chain: {name: string; slug: string; externalId?: string}): ChainVisits[] {
  const before = top.find((c) => c.slug === chain.slug)
  const visited: ChainVisits = {name: chain.name, slug: chain.slug, ...(chain.externalId ? {externalId: chain.externalId} : {}), visits: (before?.visits ?? 0) + 1}
  const rest = top.filter((c) => c.slug !== chain.slug)
  const at = rest.findIndex((c) => c.visits <= visited.visits)
  rest.splice(at === -1 ? rest.length : at, 0, visited)
  return rest.slice(0, TOP_CHAINS)
}
