import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {lineLength} from '../../src/osm/geom.js'
import {importOsm} from '../../src/osm/index.js'
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
})
