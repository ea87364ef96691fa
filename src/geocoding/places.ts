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

/** Brand names per `brand:wikidata` with how many places carry each (one region), for one chain per brand. */
class ChainNames {
  readonly byWikidata = new Map<string, Map<string, number>>()
  constructor(rows: [string, string, number][]) {
    for (const [q, name, n] of rows) {
      const names = this.byWikidata.get(q) ?? new Map<string, number>()
      names.set(name, n)
      this.byWikidata.set(q, names)
    }
  }
  close(): void {}
}

const chainNames = (map: MapData, region: string) =>
  map.engine(region, 'chain-names', ({db}) =>
    new ChainNames(db.prepare('SELECT chain_wikidata, chain, count(*) FROM places WHERE chain_wikidata IS NOT NULL AND chain IS NOT NULL GROUP BY 1, 2').raw().all() as [string, string, number][]))

/**
 * One chain per brand (`brand:wikidata`): its name is the brand string most of its places carry in
 * every region ("Citibank" over "Citi" and "CitiBank"); a brand without a wikidata id is its own name.
 */
function chainResolver(map: MapData): (row: {chain: string | null; chain_wikidata: string | null}) => {name: string; slug: string} | null {
  const regions = map.regions().map((r) => chainNames(map, r.name)).filter((c) => !!c)
  const cache = new Map<string, {name: string; slug: string}>()
  return (row) => {
    if (!row.chain) return null
    if (!row.chain_wikidata) return {name: row.chain, slug: chainSlug(row.chain)}
    let chain = cache.get(row.chain_wikidata)
    if (!chain) {
      const counts = new Map<string, number>()
      for (const r of regions) for (const [name, n] of r.byWikidata.get(row.chain_wikidata) ?? []) counts.set(name, (counts.get(name) ?? 0) + n)
      let best = row.chain, most = 0
      for (const [name, n] of counts) if (n > most || (n === most && name < best)) [best, most] = [name, n]
      chain = {name: best, slug: chainSlug(best)}
      cache.set(row.chain_wikidata, chain)
    }
    return chain
  }
}

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
  const chainOf = chainResolver(map)
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
      const slug = chainOf(row)?.slug ?? null
      // the chain's slug, or the slug of the brand string this place carries
      if (chains && (!slug || !(chains.has(slug) || chains.has(chainSlug(row.chain!))))) continue
      if (categories && !categories.has(row.category)) continue
      const meta = slug ? settings.chainMetadata[slug] : undefined
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
  return distinct.map(({row, distance}) => {
    const chainName = chainOf(row)
    const slug = chainName?.slug ?? null
    const place: Record<string, unknown> = {
      _id: `${row.osm_type}${row.osm_id}`,
      name: row.name,
      categories: [row.category],
      location: {type: 'Point', coordinates: [row.lon, row.lat]},
    }
    if (chainName && slug) {
      const chain: Record<string, unknown> = {name: chainName.name, slug}
      if (settings.chainMappings[slug]) chain.externalId = settings.chainMappings[slug]
      if (settings.chainMetadata[slug]) chain.metadata = settings.chainMetadata[slug]
      place.chain = chain
    }
    if (row.iata && IATA.test(row.iata)) place.iataCode = row.iata
    if (distance !== null) place.distance = Math.round(distance)
    return place
  })
}
