import {rmSync} from 'node:fs'
import path from 'node:path'
import {booleanPointInPolygon} from '@turf/turf'
import {writeBlob} from '../../src/map/blob.js'
import {afterAll, describe, expect, it} from 'vitest'
import {openMapData} from '../../src/map/index.js'
import {importOsm} from '../../src/osm/index.js'
import {haversine} from '../../src/osm/geom.js'
import {placeIndex} from '../../src/places/index.js'
import {PLACES_BLOB, placePoints} from '../../src/places/stage.js'
import {readManifest} from '../../src/map/manifest.js'
import {MONACO, tempDataDir} from '../osm/helpers.js'

const dataDir = tempDataDir()
afterAll(() => rmSync(dataDir, {recursive: true, force: true}))

describe('places point index (places.bin)', () => {
  it('finds exactly the places a brute-force scan finds, and reloads after a re-import', async () => {
    await importOsm(MONACO, {dataDir})
    const map = openMapData(dataDir, {checkMs: 0})
    const index = placeIndex(map, 'monaco')!
    const rows = map.db('monaco')!.prepare('SELECT id, lon, lat FROM places').all() as {id: number; lon: number; lat: number}[]
    const brute = (lng: number, lat: number, r: number) => rows.filter((p) => haversine(lng, lat, p.lon, p.lat) <= r).map((p) => p.id).sort((a, b) => a - b)
    const casino = [7.4286, 43.7397]
    const queries: [number, number, number][] = [
      [casino[0], casino[1], 50], [casino[0], casino[1], 300], [casino[0], casino[1], 2000],
      [7.4167, 43.7314, 150], [7.4095, 43.7257, 1000], [7.43, 43.75, 10], [7.5, 43.8, 100], [0, 0, 1000],
      [rows[0].lon, rows[0].lat, 0], // a place exactly at the query point
    ]
    let found = 0
    for (const [lng, lat, r] of queries) {
      const ids = index.near(lng, lat, r).sort((a, b) => a - b)
      expect(ids, `${lng},${lat} r=${r}`).toEqual(brute(lng, lat, r))
      found += ids.length
    }
    expect(found).toBeGreaterThan(100)
    expect(placeIndex(map, 'monaco')).toBe(index) // cached for the region's generation

    await importOsm(MONACO, {dataDir})
    const next = placeIndex(map, 'monaco')!
    expect(next).not.toBe(index)
    expect(index.closed).toBe(true)
    expect(next.near(casino[0], casino[1], 300).sort((a, b) => a - b)).toEqual(brute(casino[0], casino[1], 300))
    expect(placeIndex(map, 'nowhere')).toBeUndefined()
    map.close()
    expect(next.closed).toBe(true)
  })

  it('at(): every point place within 50 m and every area place whose footprint holds the fix (turf), no farther point place; a blob without reaches is rebuilt', async () => {
    await importOsm(MONACO, {dataDir})
    const check = (map: ReturnType<typeof openMapData>) => {
      const index = placeIndex(map, 'monaco')!
      const rows = (map.db('monaco')!.prepare('SELECT id, lon, lat, footprint FROM places').all() as {id: number; lon: number; lat: number; footprint: string | null}[])
        .map((r) => ({...r, footprint: r.footprint ? JSON.parse(r.footprint) : null}))
      let seed = 7
      const random = () => ((seed = (seed * 16807) % 2147483647) / 2147483647)
      let areas = 0
      const wrong: string[] = []
      for (let q = 0; q < 1000; q++) {
        // near a place, as a fix at a place is
        const p = rows[Math.floor(random() * rows.length)]
        const lng = p.lon + (random() - 0.5) * 0.004, lat = p.lat + (random() - 0.5) * 0.003
        const at = new Set(index.at(lng, lat, 50, 300))
        for (const r of rows) {
          const d = haversine(lng, lat, r.lon, r.lat)
          if (!r.footprint) {
            if (at.has(r.id) !== d <= 50) wrong.push(`point ${r.id} at ${d} m of ${lng},${lat}`)
          } else if (d <= 300 && booleanPointInPolygon([lng, lat], r.footprint)) {
            if (!at.has(r.id)) wrong.push(`area ${r.id} holds ${lng},${lat}`)
            areas++
          }
        }
      }
      expect(wrong).toEqual([])
      expect(areas).toBeGreaterThan(30)
    }
    const map = openMapData(dataDir, {checkMs: 0})
    check(map)
    map.close()
    // a region imported by a build whose places.bin (version 1) had no reaches
    const region = readManifest(dataDir).regions.monaco
    const db = openMapData(dataDir, {checkMs: 0})
    const {points, ids} = placePoints(db.db('monaco')!)
    db.close()
    writeBlob(path.join(dataDir, 'map', region.dir, `${PLACES_BLOB}.bin`), PLACES_BLOB, 1, {kdbush: points.data, ids})
    const old = openMapData(dataDir, {checkMs: 0})
    check(old)
    old.close()
  })
})
