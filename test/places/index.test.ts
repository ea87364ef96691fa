import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {openMapData} from '../../src/map/index.js'
import {importOsm} from '../../src/osm/index.js'
import {haversine} from '../../src/osm/geom.js'
import {placeIndex} from '../../src/places/index.js'
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
})
