import {rmSync} from 'node:fs'
import type Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {importOsm, type ImportResult} from '../../src/osm/index.js'
import {MONACO, count, openRegion, tempDataDir} from './helpers.js'

// Figures from ../shared/data/osm/README.md (osmium-tool 1.15.0) for monaco.osm.pbf.
let dataDir: string
let result: ImportResult
let db: Database.Database

beforeAll(async () => {
  dataDir = tempDataDir()
  result = await importOsm(MONACO, {dataDir})
  db = openRegion(dataDir, 'monaco')
})
afterAll(() => {
  db?.close()
  rmSync(dataDir, {recursive: true, force: true})
})

describe('import monaco.osm.pbf', () => {
  it('reads every object, counted as osmium counts them', () => {
    expect(result.read).toMatchObject({
      nodes: 41_361, ways: 6_180, relations: 346,
      addr: {n: 239, w: 199, r: 7},
      poi: {n: 540, w: 49, r: 1},
      brand: 111,
      highwayWays: 3_600, namedHighwayWays: 958,
      restrictions: 45,
      adminWays: 40, adminRelations: 21,
    })
  })

  it('writes addresses: every housenumber object that names its street (or addr:place)', () => {
    // osmium counts 445 objects with addr:housenumber; 25 of them carry no addr:street/addr:place
    // (housenumber-only entrances and building parts), which cannot be geocoded and are left out.
    expect(count(db, 'SELECT count(*) FROM addresses')).toBe(420)
    // of the 7 relations, 11484094 has a housenumber but neither street nor place
    expect(count(db, "SELECT count(*) FROM addresses WHERE osm_type = 'r'")).toBe(6)
    expect(count(db, 'SELECT count(*) FROM addresses WHERE street IS NULL AND place IS NULL')).toBe(0)
    expect(count(db, 'SELECT count(*) FROM addresses_rtree')).toBe(420)
    expect(count(db, "SELECT count(*) FROM addresses_fts WHERE addresses_fts MATCH 'princesse'")).toBeGreaterThan(0)
  })

  it('writes places; the amenity/shop ones are osmium\'s named POIs and its branded ones, which become chains', () => {
    // places also holds tourism, leisure, office, craft, ... (documented in docs/osm-import.md);
    // amenity comes first in the category order, then shop, so these rows are the README's "POI"
    // (590) and the 8 of osmium's 111 branded objects that have no name (7 charging stations, 1
    // vending machine), named by their brand.
    expect(count(db, "SELECT count(*) FROM places WHERE osm_tag LIKE 'amenity=%' OR osm_tag LIKE 'shop=%'")).toBe(590 + 8)
    expect(count(db, "SELECT count(*) FROM places WHERE (osm_tag LIKE 'amenity=%' OR osm_tag LIKE 'shop=%') AND (chain IS NOT NULL OR chain_wikidata IS NOT NULL)")).toBe(111)
    expect(count(db, "SELECT count(*) FROM places WHERE osm_type = 'w' AND footprint IS NULL")).toBe(0)
    const casino = db.prepare("SELECT p.* FROM places_fts f JOIN places p ON p.id = f.rowid WHERE places_fts MATCH 'casino' AND p.category = 'nightlife'").get() as {name: string; lat: number; lon: number}
    expect(casino.name).toMatch(/Casino/)
    expect(casino.lat).toBeCloseTo(43.739, 2)
  })

  it('merges named highway ways into streets by name, area and country', () => {
    // every one of osmium's 958 named highway ways lands in exactly one street, but the 14 that are
    // platforms, stops, lifts or roads not built (highway=platform|bus_stop|elevator|proposed|construction...)
    expect(count(db, 'SELECT sum(way_count) FROM streets')).toBe(958 - 14)
    expect(count(db, 'SELECT count(*) FROM streets')).toBeLessThan(958)
    // one in Monaco, and its last 147 m in Roquebrune-Cap-Martin
    expect(db.prepare("SELECT way_count FROM streets WHERE name = 'Boulevard du Larvotto' ORDER BY length_m DESC").pluck().all()).toEqual([39, 4])
  })

  it('assembles the 11 admin polygons osmium assembles, with kinds and parents', () => {
    const rows = db.prepare('SELECT id, kind, admin_level, name, country_code, parent_id FROM admin_areas ORDER BY admin_level, name').all() as {id: number; kind: string; admin_level: number; name: string; country_code: string; parent_id: number}[]
    expect(rows.map((r) => r.name)).toEqual(['Monaco', 'Monaco', 'Fontvieille', 'Jardin Exotique', 'La Condamine', 'La Rousse', 'Larvotto', 'Les Monegetti', 'Monaco-Ville', 'Monte-Carlo', 'Ravin de Sainte-Dévote'])
    expect(rows.map((r) => r.kind)).toEqual(['country', 'city', ...Array(9).fill('neighborhood')])
    expect(new Set(rows.map((r) => r.country_code))).toEqual(new Set(['MC']))
    expect(rows[1].parent_id).toBe(rows[0].id)
    for (const r of rows.slice(2)) expect(r.parent_id).toBe(rows[1].id)
    // the incomplete French relations are reported, not fatal
    expect(result.warnings.some((w) => /Alpes-Maritimes/.test(w))).toBe(true)
    // reverse lookup through the R*Tree: the Casino square is in Monte-Carlo
    const hit = db.prepare('SELECT a.name FROM admin_areas_rtree r JOIN admin_areas a ON a.id = r.id WHERE r.min_lon <= 7.4286 AND r.max_lon >= 7.4286 AND r.min_lat <= 43.7397 AND r.max_lat >= 43.7397 AND a.admin_level = 10').pluck().all()
    expect(hit).toContain('Monte-Carlo')
  })

  it('splits highways into a routable edge graph with per-mode access and turn restrictions', () => {
    const edges = count(db, 'SELECT count(*) FROM edges')
    expect(edges).toBeGreaterThan(3_600)
    expect(count(db, 'SELECT count(DISTINCT way_id) FROM edges')).toBeLessThanOrEqual(3_600)
    // edges meet only at graph nodes, and every edge endpoint exists
    expect(count(db, 'SELECT count(*) FROM edges e LEFT JOIN graph_nodes n ON n.id = e.source WHERE n.id IS NULL')).toBe(0)
    // the blob holds the polyline as 1e-7° Int32 pairs; its ends are the graph nodes
    const e = db.prepare('SELECT e.geometry, s.lon, s.lat, e.length_m FROM edges e JOIN graph_nodes s ON s.id = e.source WHERE e.length_m > 50 LIMIT 1').get() as {geometry: Buffer; lon: number; lat: number; length_m: number}
    const g = new Int32Array(e.geometry.buffer.slice(e.geometry.byteOffset, e.geometry.byteOffset + e.geometry.byteLength))
    expect(g[0] / 1e7).toBeCloseTo(e.lon, 6)
    expect(g[1] / 1e7).toBeCloseTo(e.lat, 6)
    // motorway-free Monaco: footways are foot-only both ways, one-way streets forward-only for cars
    expect(count(db, "SELECT count(*) FROM edges WHERE class = 'path' AND car != 0")).toBe(0)
    expect(count(db, 'SELECT count(*) FROM edges WHERE oneway = 1 AND car NOT IN (0, 1)')).toBe(0)
    expect(count(db, 'SELECT count(*) FROM edges WHERE ferry = 1')).toBeGreaterThan(0)
    // 45 restriction relations; 7361260 has lost its "from" way to the extract cut
    expect(count(db, 'SELECT count(*) FROM turn_restrictions')).toBe(44)
    expect(count(db, 'SELECT count(*) FROM turn_restrictions WHERE from_edge IS NOT NULL AND to_edge IS NOT NULL AND via_node IS NOT NULL')).toBeGreaterThan(35)
  })

  it('builds static-map layers per zoom band, simplified for low zooms', () => {
    const layers = Object.fromEntries((db.prepare('SELECT layer, count(*) n FROM layer_features GROUP BY layer').all() as {layer: string; n: number}[]).map((r) => [r.layer, r.n]))
    for (const l of ['water', 'landuse', 'park', 'building', 'road', 'place_label']) expect(layers[l]).toBeGreaterThan(0)
    expect(count(db, "SELECT min(minzoom) FROM layer_features WHERE layer = 'building'")).toBe(14)
    expect(count(db, "SELECT count(*) FROM layer_features WHERE layer = 'place_label'")).toBe(11) // country 1, city 1, suburb 9
    const low = count(db, "SELECT sum(length(geometry)) FROM layer_features WHERE layer = 'road' AND maxzoom = 13")
    const high = count(db, "SELECT sum(length(geometry)) FROM layer_features WHERE layer = 'road' AND maxzoom = 22")
    expect(low).toBeLessThan(high / 2)
    // one R*Tree box per feature, shared by its zoom bands
    expect(count(db, 'SELECT count(DISTINCT feature) FROM layer_features')).toBe(count(db, 'SELECT count(*) FROM layer_features_rtree'))
    const parks = db.prepare("SELECT f.name FROM layer_features_rtree r JOIN layer_features f ON f.feature = r.id WHERE r.min_lon <= 7.43 AND r.max_lon >= 7.41 AND r.min_lat <= 43.74 AND r.max_lat >= 43.72 AND f.layer = 'park' AND 12 BETWEEN f.minzoom AND f.maxzoom").pluck().all()
    expect(parks.length).toBeGreaterThan(0)
  })

  it('stores no OSM user names, uids or changesets', () => {
    const meta = JSON.stringify(db.prepare('SELECT * FROM meta').all())
    expect(meta).not.toMatch(/"(user|uid|changeset)"/)
    expect(count(db, "SELECT count(*) FROM places WHERE tags LIKE '%\"user%' OR tags LIKE '%\"uid%'")).toBe(0)
    expect(db.prepare("SELECT value FROM meta WHERE key = 'attribution'").pluck().get()).toMatch(/© OpenStreetMap contributors/)
  })
})
