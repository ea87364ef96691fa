import type Database from 'better-sqlite3'
import KDBush from 'kdbush'
import {haversine, pointInRing} from '../osm/geom.js'
import {countryCodeBeside} from './country.js'
import {stateOf} from './regions.js'

/** The administrative parts of a location, as geocoding results carry them. */
export interface AdminParts {
  country: string | null
  countryCode: string | null
  state: string | null
  stateCode: string | null
  county: string | null
  city: string | null
  borough: string | null
  neighborhood: string | null
  postalCode: string | null
}

interface Area {id: number; kind: string; level: number; name: string | null; cc: string | null; postcode: string | null; iso: string | null; rings: number[][]}
interface PlaceNode {
  feature: number; cls: string; name: string; lon: number; lat: number
  /** where it lies (set on first use): its country, and the most specific city polygon holding it */
  cc?: string | null
  city?: number | null
}

/** How far a `place=*` node's name reaches when no polygon names the locality (after Nominatim's place ranks). */
const REACH_M: Record<string, number> = {city: 15000, town: 6000, village: 3000, hamlet: 1000, suburb: 3000, quarter: 1500, neighbourhood: 1000}
const LOCALITY = ['city', 'town', 'village', 'hamlet']
const NEIGHBOURHOOD = ['suburb', 'quarter', 'neighbourhood']

/**
 * Which admin areas contain a point: the region's assembled polygons (R*Tree, then point in
 * polygon), else the nearest `place=*` node of the right rank in the same country (and, for a
 * neighbourhood, in the same city polygon), else the country from the shapes shipped with
 * @rapideditor/country-coder. Polygons are parsed once, on first use.
 */
export class AdminLookup {
  private areas = new Map<number, Area | null>()
  private readonly boxes: Database.Statement
  private byId: Database.Statement | undefined
  private readonly places: PlaceNode[]
  private readonly placePoints: KDBush
  /** the countries whose polygons the region holds: a point outside them is in none of them */
  private readonly countries: ReadonlySet<string>

  constructor(private readonly db: Database.Database) {
    this.boxes = db.prepare('SELECT id FROM admin_areas_rtree WHERE min_lon <= ? AND max_lon >= ? AND min_lat <= ? AND max_lat >= ?').pluck()
    this.places = (db.prepare("SELECT feature, class, name, geometry FROM layer_features WHERE layer = 'place_label' AND name IS NOT NULL").all() as {feature: number; class: string; name: string; geometry: string}[])
      .filter((r) => REACH_M[r.class])
      .map((r) => {
        const [lon, lat] = JSON.parse(r.geometry).coordinates as [number, number]
        return {feature: r.feature, cls: r.class, name: r.name, lon, lat}
      })
    this.placePoints = new KDBush(Math.max(1, this.places.length), 64, Float64Array)
    for (const p of this.places) this.placePoints.add(p.lon, p.lat)
    if (!this.places.length) this.placePoints.add(1000, 1000)
    this.placePoints.finish()
    this.countries = new Set(db.prepare("SELECT DISTINCT country_code FROM admin_areas WHERE kind = 'country' AND country_code IS NOT NULL").pluck().all() as string[])
  }

  /** `place=*` nodes that name localities and neighbourhoods (searchable as localities). */
  placeNodes(): readonly PlaceNode[] {
    return this.places
  }

  private area(id: number): Area | null {
    let a = this.areas.get(id)
    if (a === undefined) {
      // maps imported before admin areas kept ISO3166-2 have no iso column
      this.byId ??= this.db.prepare(`SELECT id, kind, admin_level, name, country_code, postcode, geometry, ${this.db.prepare("SELECT 1 FROM pragma_table_info('admin_areas') WHERE name = 'iso'").get() ? 'iso' : 'NULL AS iso'} FROM admin_areas WHERE id = ?`)
      const row = this.byId.get(id) as
        {id: number; kind: string; admin_level: number | null; name: string | null; country_code: string | null; postcode: string | null; geometry: string; iso: string | null} | undefined
      if (!row) a = null
      else {
        const g = JSON.parse(row.geometry) as {type: string; coordinates: number[][][][] | number[][][]}
        const polys = (g.type === 'Polygon' ? [g.coordinates] : g.coordinates) as number[][][][]
        a = {id: row.id, kind: row.kind, level: row.admin_level ?? 99, name: row.name, cc: row.country_code, postcode: row.postcode, iso: row.iso, rings: polys.flatMap((p) => p.map((r) => r.flat()))}
      }
      this.areas.set(id, a)
    }
    return a
  }

  /** Areas containing the point, most specific (highest admin level) last. */
  containing(lon: number, lat: number): Area[] {
    const out: Area[] = []
    for (const id of this.boxes.all(lon, lon, lat, lat) as number[]) {
      const a = this.area(id)
      if (!a) continue
      let inside = false
      for (const ring of a.rings) if (pointInRing(lon, lat, ring)) inside = !inside
      if (inside) out.push(a)
    }
    return out.sort((x, y) => x.level - y.level)
  }

  /** The country at a point from the areas holding it, else the shipped shapes (past the region's own country polygons). */
  private countryOf(lon: number, lat: number, areas: Area[]): string | null {
    for (const a of areas) if (a.cc) return a.cc
    return countryCodeBeside(lon, lat, this.countries)
  }

  /** The most specific city polygon among `areas` (sorted by level). */
  private static cityOf(areas: Area[]): number | null {
    let city: number | null = null
    for (const a of areas) if (a.kind === 'city') city = a.id
    return city
  }

  /**
   * The `place=*` node of `classes` nearest relative to its reach, in country `cc` and, when `city`
   * is set, in that city polygon: a town across a border never names a point.
   */
  private nearestPlace(lon: number, lat: number, classes: string[], cc: string | null, city?: number | null): PlaceNode | null {
    let best: PlaceNode | null = null
    let bestScore = 1
    const dLat = 15000 / 111_320, dLon = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180))
    for (const i of this.placePoints.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const p = this.places[i]
      if (!p || !classes.includes(p.cls)) continue
      const score = haversine(lon, lat, p.lon, p.lat) / REACH_M[p.cls]
      if (score >= bestScore) continue
      if (p.cc === undefined) {
        const areas = this.containing(p.lon, p.lat)
        p.cc = this.countryOf(p.lon, p.lat, areas)
        p.city = AdminLookup.cityOf(areas)
      }
      if (p.cc !== cc || (city != null && p.city !== city)) continue
      best = p
      bestScore = score
    }
    return best
  }

  /** The admin parts at a point; `tagged` fills what neither polygons nor place nodes give. */
  at(lon: number, lat: number, tagged: Partial<Record<'city' | 'state' | 'postcode' | 'country', string | null>> = {}): AdminParts {
    const parts: AdminParts = {country: null, countryCode: null, state: null, stateCode: null, county: null, city: null, borough: null, neighborhood: null, postalCode: null}
    let stateName: string | null = null
    let stateIso: string | null = null
    const areas = this.containing(lon, lat)
    for (const a of areas) {
      if (a.kind === 'country') parts.country = a.name
      else if (a.kind === 'state') [stateName, stateIso] = [a.name, a.iso]
      else if (a.kind === 'county') parts.county = a.name
      else if (a.kind === 'city') parts.city = a.name // the last (most specific) city wins
      else if (a.kind === 'borough') parts.borough = a.name
      else if (a.kind === 'neighborhood') parts.neighborhood = a.name
      else if (a.kind === 'postal_code') parts.postalCode = a.postcode ?? a.name
    }
    const cc = this.countryOf(lon, lat, areas) ?? (tagged.country && /^[A-Za-z]{2}$/.test(tagged.country) ? tagged.country.toUpperCase() : null)
    parts.countryCode = cc
    parts.city ??= tagged.city ?? this.nearestPlace(lon, lat, LOCALITY, cc)?.name ?? null
    parts.neighborhood ??= this.nearestPlace(lon, lat, NEIGHBOURHOOD, cc, AdminLookup.cityOf(areas))?.name ?? null
    const s = stateOf(cc, stateName ?? tagged.state ?? null)
    parts.state = s.state
    // US and Canada from the table of codes; elsewhere the state's ISO 3166-2 code ("DE-BW" → "BW")
    parts.stateCode = s.stateCode ?? (stateName && stateIso && /^[A-Z]{2}-[A-Z0-9]{1,3}$/.test(stateIso) ? stateIso.slice(3) : null)
    parts.postalCode = tagged.postcode ?? parts.postalCode
    return parts
  }
}
