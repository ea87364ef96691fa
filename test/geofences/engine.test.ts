import {describe, expect, it} from 'vitest'
import {degreesAround, localX, localY, ringShare} from '../../src/geofences/confidence.js'
import {shareInside} from '../../src/geofences/fence.js'
import {geofenceEngine} from '../../src/geofences/index.js'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {createGeofence, deleteGeofence, type GeofenceRow, insertGeofence, updateGeofenceById} from '../../src/geofences/store.js'
import type {Store} from '../../src/store/db.js'
import {write} from '../../src/store/write.js'
import {freshStore} from '../helpers.js'

const s = freshStore()
const M_PER_DEG = 111_195

function seeded(seed: number) {
  return (min = 0, max = 1) => min + ((seed = (seed * 16807) % 2147483647) / 2147483647) * (max - min)
}

/** Circles of 10 m to 10 km (a few huge), and 4–12-vertex polygons up to ~6 km, over a 20 km box. */
function geofence(random: ReturnType<typeof seeded>, i: number) {
  const lng = 7.42 + random(-0.12, 0.12), lat = 43.73 + random(-0.09, 0.09)
  const huge = i % 50 === 0
  if (i % 2) return {description: `c${i}`, type: 'circle', coordinates: [lng, lat], radius: Math.round(huge ? random(5000, 10_000) : random(10, 800)), enabled: i % 37 !== 0}
  const n = 4 + (i % 9)
  const r = (huge ? random(2000, 3000) : random(20, 600)) / M_PER_DEG
  const ring = Array.from({length: n}, (_, k) => {
    const a = (2 * Math.PI * k) / n + random(-0.25, 0.25)
    const rr = r * random(0.3, 1)
    return [Math.round((lng + (rr * Math.cos(a)) / Math.cos((lat * Math.PI) / 180)) * 1e6) / 1e6, Math.round((lat + rr * Math.sin(a)) * 1e6) / 1e6]
  })
  ring.push(ring[0])
  return {description: `p${i}`, type: 'polygon', coordinates: ring, enabled: i % 37 !== 0}
}

const rows = (store: Store) => store.sqlite.prepare('SELECT * FROM geofences').all() as GeofenceRow[]

/**
 * The ids `near` must answer: every enabled geofence of the environment whose bbox meets the box,
 * the bbox grown by `slack` (the tree holds boxes as float32 rounded outwards, so it may also answer
 * a bbox missing the box by less than a float32 step).
 */
function bruteNear(all: GeofenceRow[], live: boolean, lng: number, lat: number, m: number, slack = 0): string[] {
  const [dLng, dLat] = degreesAround(m, lat)
  const s = (v: number) => slack * Math.max(Math.abs(v), 1) * 2 ** -23
  return all.filter((g) => g.enabled === 1 && g.live === (live ? 1 : 0)
    && g.max_lng + s(g.max_lng) >= lng - dLng && g.min_lng - s(g.min_lng) <= lng + dLng
    && g.max_lat + s(g.max_lat) >= lat - dLat && g.min_lat - s(g.min_lat) <= lat + dLat).map((g) => g.id).sort()
}

/** ringShare over the stored ring projected around the fix directly: no bbox, radii or packing. */
const rings = new Map<string, number[][]>()
function referenceShare(row: GeofenceRow, lng: number, lat: number, r: number, grow: number): number {
  let ring = rings.get(row.geometry)
  if (!ring) rings.set(row.geometry, (ring = (JSON.parse(row.geometry) as {coordinates: number[][][]}).coordinates[0]))
  const cos = Math.cos((lat * Math.PI) / 180)
  const xs = Float64Array.from(ring, ([x]) => localX(x, lng, cos)), ys = Float64Array.from(ring, ([, y]) => localY(y, lat))
  return ringShare(xs, ys, ring.length, r, grow)
}

function expectSameAsBrute(store: Store, random: ReturnType<typeof seeded>, queries: number) {
  const engine = geofenceEngine(store)
  const all = rows(store)
  const byId = new Map(all.map((g) => [g.id, g]))
  let found = 0, shares = 0
  for (let q = 0; q < queries; q++) {
    const lng = 7.42 + random(-0.14, 0.14), lat = 43.73 + random(-0.1, 0.1)
    const m = [0, 10, 100, 1000][q % 4]
    for (const live of [false, true]) {
      const near = engine.near(live, lng, lat, m)
      const ids = near.map((f) => f.id).sort()
      const exact = bruteNear(all, live, lng, lat, m)
      expect(ids.filter((id) => exact.includes(id)), `${live} ${lng} ${lat} ${m}`).toEqual(exact)
      expect(bruteNear(all, live, lng, lat, m, 1).filter((id) => ids.includes(id))).toEqual(ids)
      found += ids.length
      for (const fence of near) {
        expect(engine.get(live, fence.id)).toBe(fence)
        const row = byId.get(fence.id)!
        if (row.type === 'circle') continue
        for (const [r, grow] of [[m, 0], [m, 10], [0, 0]]) {
          const share = shareInside(fence, lng, lat, r, grow)
          const reference = referenceShare(row, lng, lat, r, grow)
          expect(Math.abs(share - reference), `${fence.id} ${lng} ${lat} ${r} ${grow}`).toBeLessThan(1e-6)
          expect([share === 0, share === 1]).toEqual([reference === 0, reference === 1])
          if (share > 0) shares++
        }
      }
    }
  }
  // the data must exercise the search and the polygon shares
  expect(found).toBeGreaterThan(queries * 2)
  expect(shares).toBeGreaterThan(queries / 2)
}

describe('geofence engine', () => {
  it('near answers exactly the enabled geofences whose bbox meets the box, through overlay changes and rebuilds; polygon shares equal ringShare', async () => {
    const random = seeded(7)
    const input = (i: number) => geofenceInputSchema.parse(geofence(random, i))
    write(s.store, (tx) => {
      for (let i = 0; i < 3000; i++) insertGeofence(tx, false, input(i))
      // the live environment: one tree node (fewer than a node's 16 fences)
      for (let i = 0; i < 9; i++) insertGeofence(tx, true, input(i))
    })
    expect(geofenceEngine(s.store).size(false)).toBe(rows(s.store).filter((g) => g.enabled === 1 && g.live === 0).length)
    expectSameAsBrute(s.store, random, 400)

    // under the overlay limit: moved, resized, disabled, deleted and new geofences, the tree kept
    const changed = async () => {
      const test = rows(s.store).filter((g) => g.live === 0)
      for (let k = 0; k < 60; k++) {
        const g = test[Math.floor(random(0, test.length))]
        const op = k % 3
        if (op === 0) await updateGeofenceById(s.store, false, g.id, input(k))
        else if (op === 1) await deleteGeofence(s.store, false, {id: g.id})
        else await createGeofence(s.store, k % 2 === 0, input(k))
      }
    }
    await changed()
    expectSameAsBrute(s.store, random, 300)
    // past it: rebuilt from memory on the next search
    for (let i = 0; i < 6; i++) await changed()
    expectSameAsBrute(s.store, random, 300)
    // emptied environment
    for (const g of rows(s.store).filter((r) => r.live === 1)) await deleteGeofence(s.store, true, {id: g.id})
    expect(geofenceEngine(s.store).near(true, 7.42, 43.73, 100_000)).toEqual([])
  })

  it('a bbox edge between two float32s still meets a search touching it: the tree rounds its float32 boxes outwards', () => {
    // none of these edges is a float32: rounded to the nearest, each of them would move inwards
    const [west, east, south, north] = [7.4100001, 7.4200001, 43.7200001, 43.7300001]
    for (const v of [west, east, south, north]) expect(Math.fround(v)).not.toBe(v)
    write(s.store, (tx) => {
      insertGeofence(tx, false, geofenceInputSchema.parse({description: 'edge', type: 'polygon',
        coordinates: [[west, south], [east, south], [east, north], [west, north], [west, south]]}))
      // the rest of the tree's first leaf node
      for (let i = 0; i < 40; i++) insertGeofence(tx, false, geofenceInputSchema.parse({description: `c${i}`, type: 'circle', coordinates: [7.5 + i / 1000, 43.8], radius: 50}))
    })
    const engine = geofenceEngine(s.store)
    const edge = (lng: number, lat: number) => engine.near(false, lng, lat, 0).filter((f) => f.summary.description === 'edge').length
    for (const [lng, lat] of [[west, south], [east, north], [west, north], [east, south], [(west + east) / 2, north]]) expect(edge(lng, lat), `${lng} ${lat}`).toBe(1)
    // a metre out
    expect(edge(east + 1e-5, north)).toBe(0)
    expect(edge(west, south - 1e-5)).toBe(0)
  })

  it('a bulk change rebuilds in the background: the event loop runs throughout, the geofences as they were answer until the new index, with the changes made meanwhile, takes over', async () => {
    const random = seeded(5)
    const input = (i: number) => geofenceInputSchema.parse(geofence(random, i))
    write(s.store, (tx) => {
      for (let i = 0; i < 500; i++) insertGeofence(tx, false, input(i))
    })
    const engine = geofenceEngine(s.store)
    const before = engine.size(false)
    // an import: past the feed's threshold of 5,000 changes at once
    write(s.store, (tx) => {
      for (let i = 0; i < 20_000; i++) insertGeofence(tx, false, input(i))
    })
    let last = performance.now(), longest = 0
    const probe = setInterval(() => {
      const now = performance.now()
      longest = Math.max(longest, now - last)
      last = now
    }, 1)
    geofenceEngine(s.store)
    expect(engine.size(false)).toBe(before)
    // changed while the rebuild runs: a move, a deletion, a new geofence
    const old = s.store.sqlite.prepare('SELECT id FROM geofences LIMIT 2').pluck().all() as string[]
    await updateGeofenceById(s.store, false, old[0], input(1))
    await deleteGeofence(s.store, false, {id: old[1]})
    const created = await createGeofence(s.store, false, input(2))
    await engine.settled()
    clearInterval(probe)
    // a blocking rebuild of these 20,500 geofences held it ~0.5 s
    expect(longest).toBeLessThan(200)
    expect(geofenceEngine(s.store).size(false)).toBe(rows(s.store).filter((g) => g.enabled === 1 && g.live === 0).length)
    expect(engine.get(false, old[1])).toBeUndefined()
    expect(engine.get(false, created.id)?.id).toBe(created.id)
    expectSameAsBrute(s.store, random, 80)

    // a tree rebuild from memory, past the overlay's 256 changes, runs in the background too: the
    // changed geofences are back in the tree (slot -1 in the overlay)
    const some = rows(s.store).slice(0, 300)
    await Promise.all(some.map((g, i) => updateGeofenceById(s.store, false, g.id, input(i))))
    geofenceEngine(s.store)
    await engine.settled()
    expect(geofenceEngine(s.store).get(false, some[1].id)?.slot).toBeGreaterThanOrEqual(0)
    expectSameAsBrute(s.store, random, 80)
  }, 30_000)

  it('keyed finds the enabled geofence of a tag and externalId, through changes, disabling, deletion and both rebuilds', async () => {
    const circle = (tag: string, externalId: string, extra: Record<string, unknown> = {}) =>
      geofenceInputSchema.parse({description: `${tag}/${externalId}`, type: 'circle', coordinates: [7.42, 43.73], radius: 50, tag, externalId, ...extra})
    const at = (live: boolean, tag: string, externalId: string) => geofenceEngine(s.store).keyed(live, tag, externalId)?.summary.description ?? null
    /** Every pair's answer against the store's enabled rows, and each keyed fence the one `get` holds. */
    const expectKeyedAsStore = (gone: Array<[string, string]>) => {
      const engine = geofenceEngine(s.store)
      for (const row of rows(s.store).filter((g) => g.tag !== 'bulk2' || g.external_id!.endsWith('00'))) {
        const fence = engine.keyed(row.live === 1, row.tag!, row.external_id!)
        expect(fence?.id ?? null, `${row.tag}/${row.external_id}`).toBe(row.enabled === 1 ? row.id : null)
        if (fence) expect(engine.get(row.live === 1, row.id)).toBe(fence)
      }
      for (const [tag, externalId] of gone) expect(at(false, tag, externalId), `${tag}/${externalId}`).toBeNull()
    }
    // the first build, from the store
    const bulk = write(s.store, (tx) => {
      insertGeofence(tx, false, circle('store', 'a'))
      insertGeofence(tx, false, circle('store', 'b'))
      insertGeofence(tx, true, circle('store', 'a', {description: 'live a'}))
      return Array.from({length: 301}, (_, i) => insertGeofence(tx, false, circle('bulk', `${i}`)).id)
    })
    expect([at(false, 'store', 'a'), at(true, 'store', 'a'), at(false, 'store', 'c'), at(false, 'nope', 'a')]).toEqual(['store/a', 'live a', null, null])
    expectKeyedAsStore([])

    // a new externalId, a disabled geofence, a deleted one, and the freed pair taken by another
    const [a, b] = ['a', 'b'].map((externalId) => rows(s.store).find((g) => g.live === 0 && g.external_id === externalId)!)
    await updateGeofenceById(s.store, false, a.id, circle('store', 'a2'))
    await updateGeofenceById(s.store, false, b.id, circle('store', 'b', {enabled: false}))
    await deleteGeofence(s.store, false, {tag: 'bulk', externalId: '0'})
    await createGeofence(s.store, false, circle('store', 'a', {description: 'new a'}))
    expect([at(false, 'store', 'a'), at(false, 'store', 'a2'), at(false, 'store', 'b'), at(true, 'store', 'a')]).toEqual(['new a', 'store/a2', null, 'live a'])
    expectKeyedAsStore([['bulk', '0']])

    // a tree rebuild from memory, past the overlay's 256 changes
    for (let i = 1; i <= 300; i++) await updateGeofenceById(s.store, false, bulk[i], circle('bulk', `moved-${i}`))
    await geofenceEngine(s.store).settled()
    expectKeyedAsStore([['bulk', '0'], ['bulk', '1'], ['bulk', '300']])

    // a background rebuild from the store (past the feed's threshold of changes at once), its first slice read before one write where a geofence
    // gives up a pair that another, changed earlier in that write, then takes: the rebuild reads
    // both again once done, the taker first, and the giver must not drop the taker's pair
    write(s.store, (tx) => {
      for (let i = 0; i < 6000; i++) insertGeofence(tx, false, circle('bulk2', `${i}`))
    })
    geofenceEngine(s.store)
    for (let i = 0; i < 3; i++) await new Promise(setImmediate)
    const [giver, taker] = ['a2', 'moved-1'].map((externalId) => rows(s.store).find((g) => g.external_id === externalId)!)
    write(s.store, (tx) => {
      const set = (id: string, values: Record<string, unknown>) => tx.run(s.store.db.updateTable('geofences').set(values).where('id', '=', id))
      set(taker.id, {description: 'taker'})
      set(giver.id, {external_id: 'given'})
      set(taker.id, {tag: 'store', external_id: 'a2'})
    })
    await geofenceEngine(s.store).settled()
    expect([at(false, 'store', 'a2'), at(false, 'store', 'given'), at(false, 'bulk', 'moved-1')]).toEqual(['taker', 'store/a2', null])
    expectKeyedAsStore([['bulk', 'moved-1']])
  }, 30_000)

  it('polygon shares at the edges of the exact shortcuts (the disc inside the largest inner circle, outside the smallest outer one) equal ringShare', () => {
    const random = seeded(11)
    write(s.store, (tx) => {
      for (let i = 1; i <= 20; i++) insertGeofence(tx, false, geofenceInputSchema.parse(geofence(random, 2 * i)))
    })
    const engine = geofenceEngine(s.store)
    let partial = 0
    for (const row of rows(s.store)) {
      const fence = engine.get(false, row.id)!
      const R = row.radius
      // discs growing in 0.25 % steps of R from the centre (inside until r passes the inner
      // radius) and from 8 directions at 1.5 R (outside until r reaches the ring)
      const sweeps = [[0, 0, 0, 1], ...Array.from({length: 8}, (_, k) => [1.5 * R * Math.cos(k / 1.3), 1.5 * R * Math.sin(k / 1.3), 0.3, 0.8])]
      for (const [x, y, from, to] of sweeps) {
        const lng = row.center_lng + x / (M_PER_DEG * Math.cos((row.center_lat * Math.PI) / 180)), lat = row.center_lat + y / M_PER_DEG
        for (let r = from * R; r <= to * R; r += R / 400) {
          for (const grow of r % 4 < 1 ? [0, 10] : [0]) {
            const share = shareInside(fence, lng, lat, r, grow), reference = referenceShare(row, lng, lat, r, grow)
            expect(Math.abs(share - reference), `${row.id} ${x} ${y} ${r} ${grow}`).toBeLessThan(1e-6)
            expect([share === 0, share === 1], `${row.id} ${x} ${y} ${r} ${grow}`).toEqual([reference === 0, reference === 1])
            if (share > 0 && share < 1) partial++
          }
        }
      }
    }
    expect(partial).toBeGreaterThan(5000)
  })
})
