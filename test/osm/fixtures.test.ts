import {describe, expect, it} from 'vitest'
import {importOsm} from '../../src/osm/index.js'
import {count, fixture, freshDataDirs, openRegion} from './helpers.js'

// Extracts copied from the shared data set; the expected figures are its README's osmium counts.
const fresh = freshDataDirs()

describe('import liechtenstein.osm.pbf', () => {
  it('agrees with osmium and assembles the admin hierarchy: country, 2 Wahlkreise, 11 municipalities', async () => {
    const dataDir = fresh()
    const r = await importOsm(fixture('liechtenstein.osm.pbf'), {dataDir})
    expect(r.read).toMatchObject({
      nodes: 295_005, ways: 29_874, relations: 884,
      addr: {n: 243, w: 3_247, r: 7}, poi: {n: 304, w: 153, r: 1}, brand: 13,
      highwayWays: 6_984, namedHighwayWays: 2_578, restrictions: 85, adminWays: 113, adminRelations: 42,
    })
    // osmium assembles 14 admin relations; so do we, and the 28 Swiss/Austrian fragments are warned about
    expect(r.built.adminAreas).toBe(14)
    const db = openRegion(dataDir, 'liechtenstein')
    try {
      const areas = db.prepare('SELECT id, kind, admin_level, name, country_code, parent_id FROM admin_areas').all() as {id: number; kind: string; admin_level: number; name: string; country_code: string; parent_id: number | null}[]
      const of = (kind: string) => areas.filter((a) => a.kind === kind).map((a) => a.name).sort()
      expect(of('country')).toEqual(['Liechtenstein'])
      expect(of('county')).toEqual(['Oberland', 'Unterland'])
      expect(of('city')).toEqual(['Balzers', 'Eschen', 'Gamprin', 'Mauren', 'Planken', 'Ruggell', 'Schaan', 'Schellenberg', 'Triesen', 'Triesenberg', 'Vaduz'])
      expect(new Set(areas.map((a) => a.country_code))).toEqual(new Set(['LI']))
      const byId = new Map(areas.map((a) => [a.id, a]))
      for (const a of areas) {
        if (a.kind === 'city') expect(byId.get(a.parent_id!)?.kind).toBe('county')
        if (a.kind === 'county') expect(byId.get(a.parent_id!)?.kind).toBe('country')
      }
      expect(byId.get(areas.find((a) => a.name === 'Vaduz')!.parent_id!)?.name).toBe('Oberland')
      expect(byId.get(areas.find((a) => a.name === 'Eschen')!.parent_id!)?.name).toBe('Unterland')
      // 3,497 housenumber objects; those without addr:street/addr:place are not addresses
      const addresses = count(db, 'SELECT count(*) FROM addresses')
      expect(addresses).toBe(r.built.addresses)
      expect(addresses).toBeGreaterThan(3_497 * 0.95)
      expect(addresses).toBeLessThanOrEqual(3_497)
      // osmium's named POIs and 5 unnamed branded fuel stations (Shell, Avia, Toyota), named by their brand
      expect(count(db, "SELECT count(*) FROM places WHERE osm_tag LIKE 'amenity=%' OR osm_tag LIKE 'shop=%'")).toBe(458 + 5)
      // osmium's named highway ways but 4 platforms, stops, lifts or roads not built
      expect(count(db, 'SELECT sum(way_count) FROM streets')).toBe(2_578 - 4)
    } finally {
      db.close()
    }
  })
})

describe('unsorted files', () => {
  // quirks/ holds the original bytes of two files the README re-sorted with osmium: Baltimore has
  // relations before ways, Columbus has ids out of order. Both must build exactly what the sorted copies build.
  for (const name of ['baltimore-md-us', 'columbus-oh-us-roads']) {
    it(`${name}: the unsorted original imports to the same model as the sorted copy`, async () => {
      // the extraction is what is compared: the derived stages (routing preprocessing) are skipped
      const sorted = await importOsm(fixture(`${name}.osm.pbf`), {dataDir: fresh(), stages: []})
      const unsorted = await importOsm(fixture(`quirks/${name}.unsorted.osm.pbf`), {dataDir: fresh(), stages: []})
      expect(unsorted.region).toBe(name)
      expect(unsorted.read).toEqual(sorted.read)
      expect(unsorted.built).toEqual(sorted.built)
      expect(unsorted.built.edges).toBeGreaterThan(1_000)
    })
  }
})
