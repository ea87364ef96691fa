import type {MapData} from '../map/mapdata.js'
import {haversine} from '../osm/geom.js'
import {chainResolver, chainSlug} from '../places/chain.js'
import {placeIndex} from '../places/index.js'
import {type ChainSettings, type PlaceColumns, placeShaper} from '../places/json.js'

export interface PlaceSearch {
  chains?: string[]
  categories?: string[]
  iataCode?: string
  chainMetadata: Record<string, string>
  near?: [number, number]
  radius: number
  limit: number
}

interface SearchRow extends PlaceColumns {
  iata: string | null
}

/** A query value as the type it reads as (`true`, `12`, else the string), to compare with stored metadata. */
const inferred = (v: string): unknown => (v === 'true' ? true : v === 'false' ? false : v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v)

const IATA = /^[A-Z]{3}$/
const COLUMNS = 'osm_type, osm_id, name, category, chain, chain_wikidata, iata, lon, lat'

/**
 * `GET /v1/search/places`: places of the imported regions within `radius` of `near` (or, with
 * `iataCode` alone, the airport anywhere), filtered by chain slug (or the project's mapped id),
 * category and chain metadata, nearest first.
 */
export function searchPlaces(map: MapData, input: PlaceSearch, settings: ChainSettings): Record<string, unknown>[] {
  const slugOfMapped = new Map(Object.entries(settings['places.chainMappings']).map(([slug, id]) => [id, slug]))
  const chains = input.chains && new Set(input.chains.map((c) => slugOfMapped.get(c) ?? chainSlug(c)))
  const categories = input.categories && new Set(input.categories)
  const iata = input.iataCode?.toUpperCase()
  const chainOf = chainResolver(map)
  const found: {row: SearchRow; distance: number | null}[] = []
  for (const region of map.regions()) {
    const db = map.db(region.name)!
    const byId = db.prepare(`SELECT ${COLUMNS} FROM places WHERE id = ?`)
    let rows: SearchRow[]
    if (input.near) {
      const ids = placeIndex(map, region.name)?.near(input.near[0], input.near[1], input.radius) ?? []
      rows = ids.map((id) => byId.get(id) as SearchRow)
    } else if (iata) {
      rows = db.prepare(`SELECT ${COLUMNS} FROM places WHERE iata = ?`).all(iata) as SearchRow[]
    } else rows = []
    for (const row of rows) {
      if (iata && !(row.iata?.toUpperCase() === iata && IATA.test(iata))) continue
      const slug = chainOf(row)?.slug ?? null
      // the chain's slug, or the slug of the brand string this place carries
      if (chains && (!slug || !(chains.has(slug) || chains.has(chainSlug(row.chain!))))) continue
      if (categories && !categories.has(row.category)) continue
      const meta = slug ? settings['places.chainMetadata'][slug] : undefined
      if (Object.entries(input.chainMetadata).some(([k, v]) => meta?.[k] !== inferred(v))) continue
      found.push({row, distance: input.near ? haversine(input.near[0], input.near[1], row.lon, row.lat) : null})
    }
  }
  // a stable sort: of the copies regions hold of one place, the nearest, else the first region's
  found.sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0))
  const seen = new Set<string>()
  const distinct: typeof found = []
  for (const f of found) {
    if (distinct.length === input.limit) break
    const id = `${f.row.osm_type}${f.row.osm_id}`
    if (seen.has(id)) continue
    seen.add(id)
    distinct.push(f)
  }
  const shape = placeShaper(map, settings)
  return distinct.map(({row, distance}) => {
    const place = shape(row).json
    if (row.iata && IATA.test(row.iata)) place.iataCode = row.iata
    if (distance !== null) place.distance = Math.round(distance)
    return place
  })
}
