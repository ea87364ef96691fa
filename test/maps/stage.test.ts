import {rmSync} from 'node:fs'
import Database from 'better-sqlite3'
import {afterAll, describe, expect, it} from 'vitest'
import {lineLength} from '../../src/osm/geom.js'
import {importOsm} from '../../src/osm/index.js'
import {readManifest, regionFile} from '../../src/map/manifest.js'
import {type DrawingData, type Shape, loadDrawingData} from '../../src/maps/drawing.js'
import {BANDS, Layer} from '../../src/maps/stage.js'
import {fixture, openRegion, tempDataDir} from '../osm/helpers.js'

const dataDir = tempDataDir()
afterAll(() => rmSync(dataDir, {recursive: true, force: true}))

const WORLD = [-180, -90, 180, 90] as [number, number, number, number]
let li: DrawingData

/** Length in km of every shape of a layer/class drawn at zoom `z`. */
function km(layer: number, cls: string, z: number): number {
  let m = 0
  for (const s of li.shapes(WORLD, z)) {
    if (s.layer !== layer || s.cls !== cls) continue
    let k = 0
    for (const n of s.counts) {
      m += lineLength(Array.from(s.coords.subarray(k, k + n * 2), (v) => v / 1e7))
      k += n * 2
    }
  }
  return m / 1000
}

function boxOf(s: Shape): number[] {
  const b = [Infinity, Infinity, -Infinity, -Infinity]
  for (let k = 0; k < s.coords.length; k += 2) {
    b[0] = Math.min(b[0], s.coords[k] / 1e7); b[1] = Math.min(b[1], s.coords[k + 1] / 1e7)
    b[2] = Math.max(b[2], s.coords[k] / 1e7); b[3] = Math.max(b[3], s.coords[k + 1] / 1e7)
  }
  return b
}

describe('maps stage (drawing data)', () => {
  it('writes maps.bin and nothing into map.db', async () => {
    await importOsm(fixture('liechtenstein.osm.pbf'), {dataDir, region: 'li'})
    const db = openRegion(dataDir, 'li')
    expect(db.prepare("SELECT name FROM sqlite_master WHERE name LIKE 'maps%'").pluck().all()).toEqual([])
    const entry = readManifest(dataDir).regions.li
    expect(entry.stages).toContain('maps@4')
    li = loadDrawingData(db, regionFile(dataDir, entry, entry.blobs.maps))!
    db.close()
  })

  it('keeps whole roads at low zoom (selected by class, simplified, never dropped piecewise)', () => {
    for (const cls of ['primary', 'secondary']) {
      const full = km(Layer.Road, cls, 18)
      expect(full, cls).toBeGreaterThan(5)
      // simplification to half a pixel at z9 (~100 m) shortens mountain curves by a few per cent;
      // dropping pieces by size lost half the primary network here
      expect(km(Layer.Road, cls, cls === 'primary' ? 8 : 9) / full, cls).toBeGreaterThan(0.9)
      expect(km(Layer.Road, cls, 11) / full, cls).toBeGreaterThan(0.98)
    }
    const all = li.shapes(WORLD, 18)
    // bridges and tunnels are flagged, refs kept
    expect(all.filter((s) => s.layer === Layer.Road && s.flags & 1).length).toBeGreaterThan(0)
    expect(all.filter((s) => s.layer === Layer.Road && s.ref !== null).length).toBeGreaterThan(0)
    // an administrative boundary layer
    expect(all.filter((s) => s.layer === Layer.Boundary).length).toBeGreaterThan(0)
    // landlocked: no sea
    expect(BANDS.flatMap((b) => li.shapes(WORLD, b.max)).filter((s) => s.cls === 'sea')).toEqual([])
  })

  it('a view finds exactly the shapes whose box meets it, in paint order', () => {
    for (const [box, z] of [[[9.50, 47.13, 9.53, 47.15], 16], [[9.45, 47.05, 9.60, 47.20], 13], [[9.4, 47.0, 9.7, 47.3], 9]] as const) {
      const want = li.shapes(WORLD, z).filter((s) => {
        const b = boxOf(s)
        return b[2] >= box[0] && b[0] <= box[2] && b[3] >= box[1] && b[1] <= box[3]
      })
      expect(want.length, `z${z}`).toBeGreaterThan(50)
      expect(li.shapes([...box], z)).toEqual(want)
    }
  })

  it('regions imported before maps.bin (maps@1, @2) are packed from their tables on load, the same', () => {
    // the tables those versions wrote, from the blob's own shapes
    const db = new Database(':memory:')
    db.exec(`CREATE TABLE maps_shapes (id INTEGER PRIMARY KEY, layer INTEGER NOT NULL, class TEXT NOT NULL, name TEXT, names TEXT, ref TEXT,
      flags INTEGER NOT NULL, minzoom INTEGER NOT NULL, maxzoom INTEGER NOT NULL, geometry BLOB NOT NULL);
      CREATE TABLE maps_meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`)
    const insert = db.prepare('INSERT INTO maps_shapes (layer, class, name, names, ref, flags, minzoom, maxzoom, geometry) VALUES (?,?,?,?,?,?,?,?,?)')
    const keyOf = (s: Shape) => `${s.layer}|${s.cls}|${s.name}|${s.coords.join(',')}`
    for (const band of BANDS) {
      // each shape of the band in paint order, with the lowest zoom that shows it
      const minzoom = new Map<string, number>()
      for (let z = band.max; z >= band.min; z--) for (const s of li.shapes(WORLD, z)) minzoom.set(keyOf(s), z)
      for (const s of li.shapes(WORLD, band.max)) {
        const g = Int32Array.from([s.counts.length, ...s.counts, ...s.coords])
        insert.run(s.layer, s.cls, s.name, s.names, s.ref, s.flags, minzoom.get(keyOf(s)), band.max, Buffer.from(g.buffer))
      }
    }
    db.prepare('INSERT INTO maps_meta VALUES (?, ?)').run('areas', JSON.stringify(li.areas))
    db.prepare('INSERT INTO maps_meta VALUES (?, ?)').run('mask', JSON.stringify([]))
    const fromTables = loadDrawingData(db, undefined)!
    for (const [box, z] of [[[9.50, 47.13, 9.53, 47.15], 16], [[9.45, 47.05, 9.60, 47.20], 13], [[9.4, 47.0, 9.7, 47.3], 9]] as const) {
      expect(fromTables.shapes([...box], z)).toEqual(li.shapes([...box], z))
    }
    expect(fromTables.areas).toEqual(li.areas)
    db.close()
  })
})
