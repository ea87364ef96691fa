import type Database from 'better-sqlite3'
import type {Engine, MapData} from '../map/mapdata.js'
import type {Doc} from './docs.js'
import type {Hit} from './index.js'

const r7 = (v: number) => Math.round(v * 1e7)

/**
 * What a geocoding hit stands for, alike in every region that holds it (an extract imported twice,
 * a city inside its country's extract): an address, place or admin area is its OSM object; a
 * postcode its country and code; an interpolated number its street, town and number; anything else
 * (a street merged from ways, a `place=*` node) its layer, name and point.
 */
class Identities implements Engine {
  private readonly byLayer: Partial<Record<Doc['layer'], Database.Statement>>
  /** keys of docs seen before (a geocoder hands out the same Doc object while it caches it) */
  private readonly known = new WeakMap<Doc, string>()

  constructor(db: Database.Database) {
    const address = db.prepare("SELECT osm_type || osm_id FROM addresses WHERE id = ?").pluck()
    const place = db.prepare("SELECT osm_type || osm_id FROM places WHERE id = ?").pluck()
    const area = db.prepare("SELECT 'r' || osm_id FROM admin_areas WHERE id = ?").pluck()
    this.byLayer = {address, place, locality: area, neighborhood: area, county: area, state: area, country: area}
  }

  of(hit: Hit): string {
    const d = hit.doc
    if (hit.confidence === 'interpolated') return `interpolated|${d.countryCode}|${d.city}|${d.street}|${d.number}`
    if (d.layer === 'postalCode') return `postalCode|${d.countryCode}|${d.postalCode}`
    let key = this.known.get(d)
    if (key === undefined) {
      const osm = d.ref !== null ? (this.byLayer[d.layer]?.get(d.ref) as string | undefined) : undefined
      key = osm ? `${d.layer}|${osm}` : `${d.layer}|${d.name}|${d.number}|${d.street}|${r7(d.lon)},${r7(d.lat)}`
      this.known.set(d, key)
    }
    return key
  }

  close(): void {}
}

const identities = (map: MapData, region: string) => map.engine(region, 'geocoding-identities', ({db}) => new Identities(db))

/**
 * The first `limit` of hits ranked best first, each thing once: of a thing several regions hold, the
 * copy ranked best (equal copies rank in region order, so the region added first wins, as static maps
 * draw it). Keys are only looked up when two regions or more answered.
 */
export function distinctHits(map: MapData, ranked: {hit: Hit; region: string}[], limit: number): Hit[] {
  const first = ranked[0]?.region
  if (ranked.every((r) => r.region === first)) return ranked.slice(0, limit).map((r) => r.hit)
  const seen = new Set<string>()
  const out: Hit[] = []
  for (const {hit, region} of ranked) {
    if (out.length === limit) break
    const key = identities(map, region)?.of(hit)
    if (key !== undefined && seen.has(key)) continue
    if (key !== undefined) seen.add(key)
    out.push(hit)
  }
  return out
}
