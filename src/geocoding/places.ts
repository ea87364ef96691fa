import type {MapData} from '../map/mapdata.js'
import {haversine} from '../osm/geom.js'
import {placeIndex} from '../places/index.js'

export interface PlaceSearch {
  chains?: string[]
  categories?: string[]
  iataCode?: string
  chainMetadata: Record<string, string>
  near?: [number, number]
  radius: number
  limit: number
}

export interface PlaceSettings {
  chainMetadata: Record<string, Record<string, unknown>>
  chainMappings: Record<string, string>
}

interface PlaceRow {id: number; osm_type: string; osm_id: number; name: string; category: string; chain: string | null; chain_wikidata: string | null; iata: string | null; lon: number; lat: number}

/** A chain's slug: its name in kebab case, ASCII ("McDonald's" → "mcdonalds", "Crédit Agricole" → "credit-agricole"). */
export const chainSlug = (name: string) =>
  name.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/['’`]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')

/** A query value as the type it reads as (`true`, `12`, else the string), to compare with stored metadata. */
const inferred = (v: string): unknown => (v === 'true' ? true : v === 'false' ? false : v.trim() !== '' && Number.isFinite(Number(v)) ? Number(v) : v)

const IATA = /^[A-Z]{3}$/

/**
 * `GET /v1/search/places`: places of the imported regions within `radius` of `near` (or, with
 * `iataCode` alone, the airport anywhere), filtered by chain slug (or the project's mapped id),
 * category and chain metadata, nearest first.
 */
export function searchPlaces(map: MapData, input: PlaceSearch, settings: PlaceSettings): Record<string, unknown>[] {
  const slugOfMapped = new Map(Object.entries(settings.chainMappings).map(([slug, id]) => [id, slug]))
  const chains = input.chains && new Set(input.chains.map((c) => slugOfMapped.get(c) ?? chainSlug(c)))
  const categories = input.categories && new Set(input.categories)
  const iata = input.iataCode?.toUpperCase()
  const found: {row: PlaceRow; distance: number | null}[] = []
  for (const region of map.regions()) {
    const db = map.db(region.name)!
    const byId = db.prepare('SELECT id, osm_type, osm_id, name, category, chain, chain_wikidata, iata, lon, lat FROM places WHERE id = ?')
    let rows: PlaceRow[]
    if (input.near) {
      const ids = placeIndex(map, region.name)?.near(input.near[0], input.near[1], input.radius) ?? []
      rows = ids.map((id) => byId.get(id) as PlaceRow)
    } else if (iata) {
      rows = db.prepare('SELECT id, osm_type, osm_id, name, category, chain, chain_wikidata, iata, lon, lat FROM places WHERE iata = ?').all(iata) as PlaceRow[]
    } else rows = []
    for (const row of rows) {
      if (iata && !(row.iata?.toUpperCase() === iata && IATA.test(iata))) continue
      const slug = row.chain ? chainSlug(row.chain) : null
      if (chains && (!slug || !chains.has(slug))) continue
      if (categories && !categories.has(row.category)) continue
      const meta = slug ? settings.chainMetadata[slug] : undefined
      if (Object.entries(input.chainMetadata).some(([k, v]) => meta?.[k] !== inferred(v))) continue
      found.push({row, distance: input.near ? haversine(input.near[0], input.near[1], row.lon, row.lat) : null})
    }
  }
  found.sort((a, b) => (a.distance ?? 0) - (b.distance ?? 0))
  return found.slice(0, input.limit).map(({row, distance}) => {
    const slug = row.chain ? chainSlug(row.chain) : null
    const place: Record<string, unknown> = {
      _id: `${row.osm_type}${row.osm_id}`,
      name: row.name,
      categories: [row.category],
      location: {type: 'Point', coordinates: [row.lon, row.lat]},
    }
    if (row.chain && slug) {
      const chain: Record<string, unknown> = {name: row.chain, slug}
      if (settings.chainMappings[slug]) chain.externalId = settings.chainMappings[slug]
      if (settings.chainMetadata[slug]) chain.metadata = settings.chainMetadata[slug]
      place.chain = chain
    }
    if (row.iata && IATA.test(row.iata)) place.iataCode = row.iata
    if (distance !== null) place.distance = Math.round(distance)
    return place
  })
}
