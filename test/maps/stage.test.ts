import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {lineLength} from '../../src/osm/geom.js'
import {importOsm} from '../../src/osm/index.js'
import {readManifest, regionFile} from '../../src/map/manifest.js'
import {loadDrawingData} from '../../src/maps/drawing.js'
import {decodeParts} from '../../src/maps/shapes.js'
import {Layer} from '../../src/maps/stage.js'
import {fixture, openRegion, tempDataDir} from '../osm/helpers.js'

const dataDir = tempDataDir()
afterAll(() => rmSync(dataDir, {recursive: true, force: true}))

/** Length in km of every shape of a layer/class in the band that holds zoom `z`. */
function km(db: ReturnType<typeof openRegion>, layer: number, cls: string, z: number): number {
  const rows = db.prepare('SELECT geometry FROM maps_shapes WHERE layer = ? AND class = ? AND minzoom <= ? AND maxzoom >= ?').pluck().all(layer, cls, z, z) as Buffer[]
  let m = 0
  for (const blob of rows) {
    const {counts, coords} = decodeParts(blob)
    let k = 0
    for (const n of counts) {
      m += lineLength(Array.from(coords.subarray(k, k + n * 2), (v) => v / 1e7))
      k += n * 2
    }
  }
  return m / 1000
}

describe('maps stage (drawing data)', () => {
  it('keeps whole roads at low zoom (selected by class, simplified, never dropped piecewise)', async () => {
    await importOsm(fixture('liechtenstein.osm.pbf'), {dataDir, region: 'li'})
    const db = openRegion(dataDir, 'li')
    for (const cls of ['primary', 'secondary']) {
      const full = km(db, Layer.Road, cls, 18)
      expect(full, cls).toBeGreaterThan(5)
      // simplification to half a pixel at z9 (~100 m) shortens mountain curves by a few per cent;
      // dropping pieces by size lost half the primary network here
      expect(km(db, Layer.Road, cls, cls === 'primary' ? 8 : 9) / full, cls).toBeGreaterThan(0.9)
      expect(km(db, Layer.Road, cls, 11) / full, cls).toBeGreaterThan(0.98)
    }
    // bridges and tunnels are flagged, refs kept
    expect(db.prepare('SELECT count(*) FROM maps_shapes WHERE layer = ? AND flags & 1').pluck().get(Layer.Road)).toBeGreaterThan(0)
    expect(db.prepare('SELECT count(*) FROM maps_shapes WHERE layer = ? AND ref IS NOT NULL').pluck().get(Layer.Road)).toBeGreaterThan(0)
    // an administrative boundary layer
    expect(db.prepare('SELECT count(*) FROM maps_shapes WHERE layer = ?').pluck().get(Layer.Boundary)).toBeGreaterThan(0)
    // landlocked: no sea
    expect(db.prepare("SELECT count(*) FROM maps_shapes WHERE class = 'sea'").pluck().get()).toBe(0)
    db.close()
  })

  it('packs the shapes into maps.bin: a view finds what the R*Tree finds, with the same geometry and names', () => {
    const db = openRegion(dataDir, 'li')
    const entry = readManifest(dataDir).regions.li
    const packed = loadDrawingData(db, regionFile(dataDir, entry, entry.blobs.maps))!
    // from the tables (a region imported before the blob) the same
    const fromTables = loadDrawingData(db, undefined)!
    const rows = db.prepare(`SELECT s.layer, s.class, s.name, s.ref, s.flags, s.geometry FROM maps_shapes_rtree r JOIN maps_shapes s ON s.id = r.id
      WHERE r.max_lon >= ? AND r.min_lon <= ? AND r.max_lat >= ? AND r.min_lat <= ? AND s.minzoom <= ? AND s.maxzoom >= ? ORDER BY s.id`).raw()
    for (const [box, z] of [[[9.50, 47.13, 9.53, 47.15], 16], [[9.45, 47.05, 9.60, 47.20], 13], [[9.4, 47.0, 9.7, 47.3], 9]] as const) {
      const want = (rows.all(box[0], box[2], box[1], box[3], z, z) as [number, string, string | null, string | null, number, Buffer][])
        .map(([layer, cls, name, ref, flags, g]) => ({layer, cls, name, ref, flags, ...decodeParts(g)}))
      const got = packed.shapes([...box], z)
      expect(want.length, `z${z}`).toBeGreaterThan(50)
      // boxes of simplified shapes may be a little smaller than the R*Tree's (the unsimplified way's)
      expect(got.length / want.length, `z${z}`).toBeGreaterThan(0.97)
      const byKey = new Map(want.map((w) => [`${w.layer}|${w.coords.join(',')}`, w]))
      for (const g of got) {
        const w = byKey.get(`${g.layer}|${g.coords.join(',')}`)
        expect(w, `z${z}: a shape the tables do not hold`).toBeDefined()
        expect([g.cls, g.name, g.ref, g.flags, [...g.counts]]).toEqual([w!.cls, w!.name, w!.ref, w!.flags, [...w!.counts]])
      }
      expect(fromTables.shapes([...box], z)).toEqual(got)
    }
    db.close()
  })
})
