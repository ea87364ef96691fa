import Database from 'better-sqlite3'
import {type NodeLookup, areaPoint, insidePolygons, settlePoints} from './area-point.js'
import {CountryLocator} from './countries.js'
import {type Coords, bbox, interiorPoint, joinRings, nestRings, round7, simplify, toPositions} from './geom.js'
import {type Member, MemberType, type OsmVisitor, type Tags} from './pbf.js'
import {FTS_TABLES, MAP_SCHEMA, MAP_SCHEMA_VERSION} from './schema.js'
import {type RoadExtra, roadExtra} from './road-extra.js'
import {writeRoadGraph} from './roads.js'
import {allNames, namesByLanguage} from './names.js'
import {writeStreets} from './streets.js'
import {NodeTable, WayTable} from './tables.js'
import {type RoadAttrs, PLACE_LABEL_MINZOOM, PLACE_TAG_KEYS, adminKind, layerClass, ownCountryCode, placeClass, roadAttrs} from './tags.js'

/** What the file holds, counted the way the shared README's osmium figures are. */
export interface SourceCounts {
  nodes: number
  ways: number
  relations: number
  /** objects with addr:housenumber, by type */
  addr: {n: number; w: number; r: number}
  /** objects with name and (amenity or shop), by type */
  poi: {n: number; w: number; r: number}
  /** amenity/shop objects with brand or brand:wikidata */
  brand: number
  highwayWays: number
  namedHighwayWays: number
  /** type=restriction relations */
  restrictions: number
  adminWays: number
  adminRelations: number
}

/** Rows written per table. */
export interface BuiltCounts {
  addresses: number
  interpolations: number
  streets: number
  places: number
  adminAreas: number
  postalCodes: number
  graphNodes: number
  edges: number
  turnRestrictions: number
  layerFeatures: number
}

export type Phase = 'read' | 'ways' | 'relations' | 'roads' | 'streets' | 'index'

export interface Rel {id: number; members: Member[]; tags: Tags}
type Polygons = Coords[][]
/** An admin or postal-code relation assembled into polygons, with its point (area-point.ts). */
interface AdminEntry {rel: Rel; polygons: Polygons; level: number; cc: string | null; b: number[]; point: [number, number]; pinned: boolean}

/** Zoom bands for map layers; geometry is simplified to half a pixel at the band's highest zoom. */
const BANDS = [
  {min: 0, max: 9, tol: 180 / (256 * 2 ** 9)},
  {min: 10, max: 13, tol: 180 / (256 * 2 ** 13)},
  {min: 14, max: 22, tol: 0},
]

/** A routable way kept for the road graph: its index in the way table, OSM id and attributes. */
export interface Road {w: number; id: number; a: RoadAttrs; x: RoadExtra; name: string | null; ref: string | null}

/**
 * Builds one region file from two passes over a PBF, so that files in any order work and memory
 * stays flat: pass 1 (`nodes`) keeps every node coordinate, writes tagged nodes and keeps the few
 * relations the model uses; pass 2 (`ways`) writes each way's features as it arrives and keeps node
 * lists only for the ways needed later (roads, streets, relation members). `finish()` then assembles
 * areas, splits the road graph, merges streets and indexes.
 */
export class MapBuilder {
  readonly source: SourceCounts = {nodes: 0, ways: 0, relations: 0, addr: {n: 0, w: 0, r: 0}, poi: {n: 0, w: 0, r: 0}, brand: 0, highwayWays: 0, namedHighwayWays: 0, restrictions: 0, adminWays: 0, adminRelations: 0}
  readonly built: BuiltCounts = {addresses: 0, interpolations: 0, streets: 0, places: 0, adminAreas: 0, postalCodes: 0, graphNodes: 0, edges: 0, turnRestrictions: 0, layerFeatures: 0}
  readonly warnings: string[] = []
  readonly nodes = new NodeTable()
  /** house numbers of nodes (interpolation lines take their end numbers from their end nodes, with or without a street) */
  private readonly nodeNumbers = new Map<number, {number: string; street: string | null}>()
  /** name and wikidata of named `place=*` nodes (an admin area's `admin_centre` is the place it stands for when they match) */
  private readonly placeNodes = new Map<number, {name: string; wikidata: string | null}>()
  readonly ways = new WayTable()
  readonly relations: Rel[] = []
  /** Ids of ways that kept relations reference. */
  private memberWays = new Set<number>()
  readonly roads: Road[] = []
  readonly streetWays = new Map<string, {ways: number[]; cls: string[]}>()
  /** `allNames` of street ways that have any, by way-table index (merged into their street's names) */
  readonly streetNames = new Map<number, string>()
  /** the country at a point, once the admin areas are assembled (streets are split by it) */
  countries = new CountryLocator([])
  private idxBuf = new Int32Array(1024)
  private features = 0
  private db: Database.Database
  private st: ReturnType<typeof prepare>
  private extent = [Infinity, Infinity, -Infinity, -Infinity]

  constructor(file: string) {
    this.db = new Database(file)
    // A build file is worthless until it is complete, so durability comes from one fsync before the swap.
    this.db.pragma('journal_mode = OFF')
    this.db.pragma('synchronous = OFF')
    this.db.pragma('locking_mode = EXCLUSIVE')
    this.db.pragma('cache_size = -65536')
    this.db.exec(MAP_SCHEMA)
    this.st = prepare(this.db)
    this.db.exec('BEGIN')
  }

  /** Visitor for pass 1. */
  readonly nodePass: OsmVisitor = {
    node: (id, lon, lat, tags) => {
      this.nodes.add(id, lon, lat)
      this.source.nodes++
      if (tags) {
        this.countTags(tags, 'n')
        if (tags['addr:housenumber']) this.nodeNumbers.set(id, {number: tags['addr:housenumber'], street: tags['addr:street'] ?? null})
        this.pointFeature('n', id, lon / 1e7, lat / 1e7, tags)
      }
    },
    relation: (id, members, tags) => {
      this.source.relations++
      if (!tags) return
      this.countTags(tags, 'r')
      const type = tags.type
      if (type === 'restriction') this.source.restrictions++
      if (tags.boundary === 'administrative') this.source.adminRelations++
      if (type === 'multipolygon' || type === 'boundary' || type === 'restriction' || tags['addr:housenumber']) {
        this.relations.push({id, members, tags})
        for (const m of members) if (m.type === MemberType.Way) this.memberWays.add(m.ref)
      }
    },
  }

  /** Visitor for pass 2; call `startWays()` between the passes. */
  readonly wayPass: OsmVisitor = {
    way: (id, refs, count, tags) => this.way(id, refs, count, tags),
  }

  startWays(): void {
    this.nodes.finish()
    const {nodes} = this
    for (let i = 0; i < nodes.size; i++) {
      const x = nodes.lon(i), y = nodes.lat(i)
      if (x < this.extent[0]) this.extent[0] = x
      if (y < this.extent[1]) this.extent[1] = y
      if (x > this.extent[2]) this.extent[2] = x
      if (y > this.extent[3]) this.extent[3] = y
    }
  }

  private way(id: number, refs: Float64Array, count: number, tags: Tags | null): void {
    this.source.ways++
    if (this.idxBuf.length < count) this.idxBuf = new Int32Array(count * 2)
    const all = this.idxBuf.subarray(0, count)
    let present = 0
    for (let i = 0; i < count; i++) if ((all[i] = this.nodes.indexOf(refs[i])) >= 0) present++
    const road = tags ? roadAttrs(tags) : null
    const street = tags?.highway && tags.name && !NOT_STREETS.has(tags.highway) ? tags.name : null
    let w = -1
    if (road || street || this.memberWays.has(id)) w = this.ways.add(id, all)
    if (!tags) return
    this.countTags(tags, 'w')
    if (tags.highway) {
      this.source.highwayWays++
      if (tags.name) this.source.namedHighwayWays++
    }
    if (tags.boundary === 'administrative') this.source.adminWays++
    if (present < 2) return
    if (road) this.roads.push({w, id, a: road, x: roadExtra(tags), name: tags.name ?? null, ref: tags.ref ?? null})
    if (road && tags.name) this.names('way', id, namesByLanguage(tags))
    if (street) {
      const names = allNames(tags)
      if (names) this.streetNames.set(w, names)
      const cls = ROADISH[tags.highway!] ?? 'path'
      const entry = this.streetWays.get(street)
      if (!entry) this.streetWays.set(street, {ways: [w], cls: [cls]})
      else {
        entry.ways.push(w)
        entry.cls.push(cls)
      }
    }
    const idx = present === count ? all : all.filter((n) => n >= 0)
    this.wayFeatures(id, idx, tags, [this.nodeNumbers.get(refs[0]), this.nodeNumbers.get(refs[count - 1])])
  }

  private wayFeatures(id: number, idx: Int32Array, tags: Tags, ends: InterpolationEnds): void {
    const c = this.coords(idx)
    const closed = idx.length >= 4 && idx[0] === idx[idx.length - 1]
    if (tags['addr:interpolation']) this.interpolation(id, c, tags, ends)
    const polygons = closed && (tags.highway === undefined || tags.area === 'yes') ? [[c]] : undefined
    if (tags['addr:housenumber'] || placeClass(tags)) {
      const [x, y] = polygons ? interiorPoint(polygons[0]) : [c[(idx.length >> 1) * 2], c[(idx.length >> 1) * 2 + 1]]
      const footprint = polygons ? JSON.stringify({type: 'Polygon', coordinates: nestRings([c]).flat().map(toPositions)}) : undefined
      this.pointFeature('w', id, x, y, tags, footprint)
    }
    const lc = layerClass(tags, closed)
    if (lc) this.layerShape(lc.layer, lc.cls, tags.name ?? null, lc.minzoom, lc.area ? {polygons: nestRings([c])} : {line: c})
  }

  private countTags(tags: Tags, t: 'n' | 'w' | 'r'): void {
    if (tags['addr:housenumber']) this.source.addr[t]++
    if (tags.amenity || tags.shop) {
      if (tags.name) this.source.poi[t]++
      if (tags.brand || tags['brand:wikidata']) this.source.brand++
    }
  }

  /** Rows that only need the object's own tags and one point. */
  private pointFeature(type: 'n' | 'w' | 'r', id: number, lon: number, lat: number, tags: Tags, footprint?: string): void {
    if (tags['addr:housenumber'] && (tags['addr:street'] || tags['addr:place'])) this.address(type, id, lon, lat, tags)
    const pc = placeClass(tags)
    if (pc) {
      const extra: Tags = {}
      for (const k of PLACE_TAG_KEYS) if (tags[k]) extra[k] = tags[k]
      // real IATA codes only: 3 letters (FAA location identifiers such as 4MD are not)
      const iata = tags.aeroway === 'aerodrome' && /^[A-Z]{3}$/.test(tags.iata ?? '') ? tags.iata : null
      const rowId = ++this.built.places
      this.st.place.run(rowId, type, id, tags.name ?? tags.brand, pc.category, pc.osmTag, tags.brand ?? null, tags['brand:wikidata'] ?? null, iata,
        tags['addr:housenumber'] ?? null, tags['addr:street'] ?? null, tags['addr:city'] ?? null, tags['addr:postcode'] ?? null,
        JSON.stringify(extra), round7(lon), round7(lat), footprint ?? null)
      this.st.placeBox.run(rowId, lon, lon, lat, lat)
    }
    if (type === 'n' && tags.place && tags.name) {
      this.placeNodes.set(id, {name: tags.name, wikidata: tags.wikidata ?? null})
      this.layer('place_label', tags.place, tags.name, PLACE_LABEL_MINZOOM[tags.place] ?? 14, JSON.stringify({type: 'Point', coordinates: [round7(lon), round7(lat)]}), [lon, lat, lon, lat])
      this.names('label', this.features, allNames(tags))
    }
  }

  /** A `names` row: roads' `name:<lang>` for map labels (kind way), every other name of place labels and admin areas (label, area). */
  private names(kind: 'way' | 'label' | 'area', ref: number, names: string | null): void {
    if (names) this.st.names.run(kind, ref, names)
  }

  private address(type: 'n' | 'w' | 'r', id: number, lon: number, lat: number, t: Tags): void {
    const rowId = ++this.built.addresses
    this.st.address.run(rowId, type, id, t['addr:housenumber'], t['addr:street'] ?? null, t['addr:place'] ?? null, t['addr:unit'] ?? null,
      t['addr:city'] ?? null, t['addr:postcode'] ?? null, t['addr:state'] ?? t['addr:province'] ?? null, t['addr:country'] ?? null, round7(lon), round7(lat), t.building ?? null)
    this.st.addressBox.run(rowId, lon, lon, lat, lat)
  }

  private layer(layer: string, cls: string, name: string | null, minzoom: number, geometry: string, b: number[]): void {
    const feature = ++this.features
    this.st.layer.run(++this.built.layerFeatures, feature, layer, cls, name, minzoom, 22, geometry)
    this.st.layerBox.run(feature, b[0], b[2], b[1], b[3])
  }

  /** Writes a line or polygon feature once per zoom band it is visible in, simplified for that band. */
  private layerShape(layer: string, cls: string, name: string | null, minzoom: number, shape: {line?: Coords; polygons?: Polygons}): void {
    const b = shape.line ? bbox(shape.line) : bbox(shape.polygons![0][0])
    if (shape.polygons) for (const p of shape.polygons) bbox(p[0], b)
    let feature = 0
    for (const band of BANDS) {
      if (band.max < minzoom) continue
      const zmin = Math.max(band.min, minzoom)
      // Below two pixels across, an area or line is invisible in this band.
      if (band.tol > 0 && Math.max(b[2] - b[0], b[3] - b[1]) < band.tol * 4) continue
      let geometry: string
      if (shape.line) {
        const c = simplify(shape.line, band.tol)
        geometry = JSON.stringify({type: 'LineString', coordinates: toPositions(c)})
      } else {
        const polys: number[][][][] = []
        for (const p of shape.polygons!) {
          const outer = simplify(p[0], band.tol)
          if (outer.length < 8) continue
          const holes = p.slice(1).map((r) => simplify(r, band.tol)).filter((r) => r.length >= 8)
          polys.push([outer, ...holes].map(toPositions))
        }
        if (!polys.length) continue
        geometry = JSON.stringify(polys.length === 1 ? {type: 'Polygon', coordinates: polys[0]} : {type: 'MultiPolygon', coordinates: polys})
      }
      if (!feature) {
        feature = ++this.features
        this.st.layerBox.run(feature, b[0], b[2], b[1], b[3])
      }
      this.st.layer.run(++this.built.layerFeatures, feature, layer, cls, name, zmin, band.max, geometry)
    }
  }

  coords(idx: Int32Array): Coords {
    const {nodes} = this
    const c: Coords = new Array(idx.length * 2)
    for (let i = 0; i < idx.length; i++) {
      c[i * 2] = nodes.lon(idx[i]) / 1e7
      c[i * 2 + 1] = nodes.lat(idx[i]) / 1e7
    }
    return c
  }

  /** Extracts everything and commits the build file. `tick` lets the caller report progress and yield. */
  async finish(tick: (phase: Phase, done: number, total: number) => Promise<void>): Promise<void> {
    this.ways.finish()
    await this.relationsPass(tick)
    await writeRoadGraph(this, this.st, this.built, tick)
    await writeStreets(this, this.st, this.built, tick)

    await tick('index', 0, 1)
    for (const t of FTS_TABLES) this.db.exec(`INSERT INTO ${t}(${t}) VALUES ('rebuild')`)
    const meta = this.db.prepare('INSERT INTO meta (key, value) VALUES (?, ?)')
    const e = this.extent
    meta.run('schema_version', String(MAP_SCHEMA_VERSION))
    meta.run('bbox', JSON.stringify(Number.isFinite(e[0]) ? e.map((v) => v / 1e7) : null))
    meta.run('source_counts', JSON.stringify(this.source))
    meta.run('built_counts', JSON.stringify(this.built))
    meta.run('attribution', '© OpenStreetMap contributors, ODbL 1.0, https://www.openstreetmap.org/copyright')
    this.db.exec('COMMIT')
    this.db.exec('ANALYZE')
    this.db.pragma('journal_mode = DELETE')
    this.close()
  }

  get bbox(): [number, number, number, number] | null {
    const e = this.extent
    return Number.isFinite(e[0]) ? [e[0] / 1e7, e[1] / 1e7, e[2] / 1e7, e[3] / 1e7] : null
  }

  close(): void {
    if (this.db.open) this.db.close()
  }

  /** An `addr:interpolation` line with the house numbers of its end nodes (its street from them when the line has none). */
  private interpolation(id: number, c: Coords, t: Tags, [start, end]: InterpolationEnds): void {
    const rowId = ++this.built.interpolations
    const street = t['addr:street'] ?? start?.street ?? end?.street ?? null
    this.st.interpolation.run(rowId, id, t['addr:interpolation'], street, t['addr:city'] ?? null, t['addr:postcode'] ?? null,
      JSON.stringify({type: 'LineString', coordinates: toPositions(c)}), start?.number ?? null, end?.number ?? null)
    const b = bbox(c)
    this.st.interpolationBox.run(rowId, b[0], b[2], b[1], b[3])
  }

  /** Rings of a multipolygon/boundary relation, or a reason it cannot be built. */
  private assemble(rel: Rel): Polygons | string {
    const segments: Int32Array[] = []
    let missing = 0
    for (const m of rel.members) {
      if (m.type !== MemberType.Way || (m.role !== 'outer' && m.role !== 'inner' && m.role !== '')) continue
      const w = this.ways.indexOf(m.ref)
      if (w < 0 || !this.ways.complete(w)) {
        missing++
        continue
      }
      const idx = this.ways.nodes(w)
      if (idx.length >= 2) segments.push(idx)
    }
    if (missing) return `${missing} member way(s) missing or incomplete`
    if (!segments.length) return 'no member ways'
    const rings = joinRings(segments)
    if (!rings) return 'rings do not close'
    return nestRings(rings.map((r) => this.coords(r)))
  }

  private async relationsPass(tick: (phase: Phase, done: number, total: number) => Promise<void>): Promise<void> {
    const admins: AdminEntry[] = []
    const postal: AdminEntry[] = []
    let skippedAdmin = 0
    for (let i = 0; i < this.relations.length; i++) {
      if ((i & 0x3ff) === 0) await tick('relations', i, this.relations.length)
      const rel = this.relations[i]
      const t = rel.tags
      if (t.type === 'restriction') continue
      const isAdmin = t.boundary === 'administrative' && t.admin_level !== undefined
      const isPostal = t.boundary === 'postal_code'
      const wanted = isAdmin || isPostal || t.type === 'multipolygon' || t['addr:housenumber']
      if (!wanted) continue
      const result = this.assemble(rel)
      if (typeof result === 'string') {
        if (isAdmin || isPostal) {
          skippedAdmin++
          this.warnings.push(`relation ${rel.id} (${t.name ?? t.postal_code ?? 'unnamed'}, ${isAdmin ? `admin_level ${t.admin_level}` : 'postal code'}): ${result}; skipped`)
        }
        if (t['addr:housenumber'] || placeClass(t)) this.relationPoint(rel)
        continue
      }
      const b = bbox(result[0][0])
      for (const p of result) bbox(p[0], b)
      if (isAdmin || isPostal) {
        const level = Number.parseInt(t.admin_level ?? '', 10)
        const entry = {rel, polygons: result, level: Number.isFinite(level) ? level : 0, cc: ownCountryCode(t), b, ...areaPoint(rel.members, t, result, b, this.nodeLookup)}
        if (isAdmin) admins.push(entry)
        else postal.push(entry)
        continue
      }
      const outer = result.reduce((best, p) => (p[0].length > best[0].length ? p : best))
      const label = interiorPoint(outer)
      const geometry = JSON.stringify({type: 'MultiPolygon', coordinates: result.map((p) => p.map(toPositions))})
      if (t['addr:housenumber'] || placeClass(t)) this.pointFeature('r', rel.id, label[0], label[1], t, geometry)
      const lc = layerClass(t, true)
      if (lc?.area) this.layerShape(lc.layer, lc.cls, t.name ?? null, lc.minzoom, {polygons: result})
    }
    if (skippedAdmin) this.warnings.unshift(`${skippedAdmin.toLocaleString('en-US')} admin/postal relation(s) could not be assembled (members outside the extract) and were skipped`)
    this.adminAreas(admins, postal)
  }

  /** A relation that cannot be assembled still gives an address or place at the middle of its members. */
  private relationPoint(rel: Rel): void {
    const b = [Infinity, Infinity, -Infinity, -Infinity]
    for (const m of rel.members) {
      if (m.type === MemberType.Node) {
        const n = this.nodes.indexOf(m.ref)
        if (n >= 0) bbox([this.nodes.lon(n) / 1e7, this.nodes.lat(n) / 1e7], b)
      } else if (m.type === MemberType.Way) {
        const w = this.ways.indexOf(m.ref)
        if (w >= 0) bbox(this.coords(this.ways.nodes(w)), b)
      }
    }
    if (Number.isFinite(b[0])) this.pointFeature('r', rel.id, (b[0] + b[2]) / 2, (b[1] + b[3]) / 2, rel.tags)
  }

  private readonly nodeLookup: NodeLookup = {
    at: (id) => {
      const n = this.nodes.indexOf(id)
      return n < 0 ? null : [this.nodes.lon(n) / 1e7, this.nodes.lat(n) / 1e7]
    },
    place: (id) => this.placeNodes.get(id),
  }

  private adminAreas(admins: AdminEntry[], postal: AdminEntry[]): void {
    const inside = (x: number, y: number, a: AdminEntry) => insidePolygons(x, y, a.polygons, a.b)
    const countries = admins.filter((a) => a.level === 2 && a.cc)
    admins.sort((a, b) => a.level - b.level)
    // each area's parent: the nearest lower-level area holding its point
    const parents = admins.map((a, i) => {
      for (let j = i - 1; j >= 0; j--) if (admins[j].level < a.level && inside(a.point[0], a.point[1], admins[j])) return j
      return -1
    })
    settlePoints(admins, parents)
    const rowIds: number[] = []
    admins.forEach((a, i) => {
      if (!a.cc || a.level !== 2) a.cc = a.cc ?? countries.find((c) => inside(a.point[0], a.point[1], c))?.cc ?? null
      const kind = adminKind(a.level, a.cc) ?? 'other'
      rowIds.push(this.writeArea(a, kind, parents[i] < 0 ? null : rowIds[parents[i]]))
      this.built.adminAreas++
    })
    this.countries = new CountryLocator(admins)
    for (const p of postal) {
      this.writeArea(p, 'postal_code', null)
      this.built.postalCodes++
    }
  }

  private areaSeq = 0

  private writeArea(a: AdminEntry, kind: string, parent: number | null): number {
    const rowId = ++this.areaSeq
    const t = a.rel.tags
    const geometry = JSON.stringify({type: 'MultiPolygon', coordinates: a.polygons.map((p) => p.map(toPositions))})
    this.st.area.run(rowId, a.rel.id, kind, kind === 'postal_code' ? null : a.level, t.name ?? null, a.cc, t.postal_code ?? (kind === 'postal_code' ? t.name ?? null : null),
      parent, round7(a.point[0]), round7(a.point[1]), geometry, t['ISO3166-2'] ?? null)
    this.st.areaBox.run(rowId, a.b[0], a.b[2], a.b[1], a.b[3])
    if (kind !== 'postal_code') this.names('area', rowId, allNames(t))
    return rowId
  }
}

type InterpolationEnds = [{number: string; street: string | null} | undefined, {number: string; street: string | null} | undefined]

/** Named `highway=*` ways that are not streets anyone lives on: stops and platforms, lifts, roads not (or no longer) built. */
const NOT_STREETS = new Set(['platform', 'bus_stop', 'elevator', 'proposed', 'construction', 'planned', 'abandoned', 'disused', 'razed', 'dismantled', 'rest_area', 'services'])

const ROADISH: Record<string, string> = {
  motorway: 'motorway', motorway_link: 'motorway', trunk: 'trunk', trunk_link: 'trunk', primary: 'primary', primary_link: 'primary',
  secondary: 'secondary', secondary_link: 'secondary', tertiary: 'tertiary', tertiary_link: 'tertiary', unclassified: 'minor',
  residential: 'minor', living_street: 'minor', road: 'minor', service: 'service', track: 'track',
}

export type Statements = ReturnType<typeof prepare>

function prepare(db: Database.Database) {
  const box = (t: string) => db.prepare(`INSERT INTO ${t}_rtree VALUES (?, ?, ?, ?, ?)`)
  return {
    address: db.prepare('INSERT INTO addresses VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)'),
    addressBox: box('addresses'),
    interpolation: db.prepare('INSERT INTO interpolations VALUES (?,?,?,?,?,?,?,?,?)'),
    interpolationBox: box('interpolations'),
    street: db.prepare('INSERT INTO streets VALUES (?,?,?,?,?,?,?,?)'),
    streetBox: box('streets'),
    place: db.prepare('INSERT INTO places VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)'),
    placeBox: box('places'),
    area: db.prepare('INSERT INTO admin_areas VALUES (?,?,?,?,?,?,?,?,?,?,?,?)'),
    areaBox: box('admin_areas'),
    graphNode: db.prepare('INSERT INTO graph_nodes VALUES (?,?,?,?)'),
    edge: db.prepare('INSERT INTO edges VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)'),
    edgeBox: box('edges'),
    edgeAttrs: db.prepare('INSERT INTO edge_attrs VALUES (?,?,?,?,?,?,?,?,?,?,?)'),
    restriction: db.prepare('INSERT INTO turn_restrictions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)'),
    layer: db.prepare('INSERT INTO layer_features VALUES (?,?,?,?,?,?,?,?)'),
    layerBox: box('layer_features'),
    names: db.prepare('INSERT OR IGNORE INTO names VALUES (?,?,?)'),
  }
}
