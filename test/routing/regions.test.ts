import {rmSync} from 'node:fs'
import polyline from '@mapbox/polyline'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {openMapData} from '../../src/map/index.js'
import type {MapData} from '../../src/map/mapdata.js'
import {importOsm} from '../../src/osm/index.js'
import {regionRouting} from '../../src/routing/index.js'
import {contract} from '../../src/routing/ch.js'
import {modeArcs, readNetwork} from '../../src/routing/graph.js'
import {arcSequences, readRestrictions} from '../../src/routing/restrictions.js'
import {MODES} from '../../src/routing/profile.js'
import {bestOrder, routeDirections} from '../../src/routing/service.js'
import {type Snap, candidates} from '../../src/routing/snap.js'
import {MONACO, fixture, tempDataDir} from '../osm/helpers.js'

const dataDir = tempDataDir()
let map: MapData
beforeAll(async () => {
  await importOsm(MONACO, {dataDir})
  await importOsm(fixture('liechtenstein.osm.pbf'), {dataDir, add: true})
  map = openMapData(dataDir, {checkMs: 0})
}, 120_000)
afterAll(() => {
  map?.close()
  rmSync(dataDir, {recursive: true, force: true})
})

/** the via-way relations of liechtenstein.osm.pbf (all no_*, for every mode): every one resolves to a chain of edges */
const VIA_WAY_NO_ROWS = 7

const random = (seed: number) => () => ((seed = (seed * 16807) % 2147483647) / 2147483647)

/** Seeded random points on the region's road network (a random edge, a random place along it). */
function pointsOn(region: string, k: number, count: number, seed: number): Snap[] {
  const r = regionRouting(map, region)!.mode(k)
  const rnd = random(seed)
  const out: Snap[] = []
  while (out.length < count) {
    const e = Math.floor(rnd() * r.net.src.length)
    if (!(r.net.access[e] & (3 << (2 * k))) || r.g.tiny[e]) continue
    const s = r.net.geomOff[e]
    const snap = r.snap(r.net.geom[s] / 1e7 + 1e-6, r.net.geom[s + 1] / 1e7, 100)
    if (snap) out.push(snap)
  }
  return out
}

describe('routing on real regions (Monaco, Liechtenstein)', () => {
  it('the compiled contraction worker builds the same hierarchy as contracting in process (dist/, from npm run build)', async () => {
    const {contractors} = await import(new URL('../../dist/routing/contractors.js', import.meta.url).href)
    const db = map.db('monaco')!
    const arcs = modeArcs(readNetwork(db), 0, readRestrictions(db, 'car'))
    const pool = contractors()
    try {
      expect(pool.parallel).toBeGreaterThanOrEqual(1)
      const [a, b] = await Promise.all([pool.run(arcs, async () => {}), contract(arcs)])
      expect(Array.from(a.rank)).toEqual(Array.from(b.rank))
      expect(Array.from(a.upTo)).toEqual(Array.from(b.upTo))
      expect(Array.from(a.dnW)).toEqual(Array.from(b.dnW))
    } finally {
      await pool.close()
    }
  })

  it('the contraction hierarchy costs exactly what plain Dijkstra costs on 1,000 seeded connected pairs', () => {
    let pairs = 0
    for (const [region, seed] of [['monaco', 7], ['liechtenstein', 11]] as const) {
      for (const k of [0, 3]) {
        const r = regionRouting(map, region)!.mode(k)
        const pts = pointsOn(region, k, 1200, seed + k)
        let found = 0
        for (let i = 0; i + 1 < pts.length && found < 250; i += 2) {
          const plain = r.dijkstra(pts[i], {to: pts[i + 1]}).cost
          if (!plain) continue
          const fast = r.cost(pts[i], pts[i + 1])
          expect(fast, `${region} ${MODES[k]} pair ${i}`).not.toBeNull()
          expect(fast!.w).toBeCloseTo(plain.w, 6)
          expect(r.route(pts[i], pts[i + 1], undefined, {uturns: true})!.w).toBeCloseTo(plain.w, 6) // plain Dijkstra turns round anywhere too
          found++
        }
        pairs += found
      }
    }
    expect(pairs).toBe(1000)
  })

  it('matrix cells equal single routes; optimize equals brute force', () => {
    const r = regionRouting(map, 'liechtenstein')!.mode(0)
    const pts = pointsOn('liechtenstein', 0, 14, 99)
    const from = pts.slice(0, 7), to = pts.slice(7)
    const m = r.matrix(from, to)
    from.forEach((a, i) => to.forEach((b, j) => {
      const single = r.cost(a, b)
      if (!single) expect(m[i][j]).toBeNull()
      else expect(m[i][j]!.w).toBeCloseTo(single.w, 6)
    }))
    const stops = pts.slice(0, 8)
    const c = r.matrix(stops, stops).map((row) => row.map((x) => (x ? x.w : Infinity)))
    const order = bestOrder(c)!
    const cost = (o: number[]) => o.slice(1).reduce((s, j, k) => s + c[o[k]][j], 0)
    let brute = Infinity
    const permute = (rest: number[], acc: number[]) => {
      if (!rest.length) brute = Math.min(brute, cost([0, ...acc, 7]))
      rest.forEach((x, i) => permute([...rest.slice(0, i), ...rest.slice(i + 1)], [...acc, x]))
    }
    permute([1, 2, 3, 4, 5, 6], [])
    expect(order[0]).toBe(0)
    expect(order[7]).toBe(7)
    expect(new Set(order).size).toBe(8)
    expect(cost(order)).toBeCloseTo(brute, 6)
  })

  it('a run of matrices sharing one cache of search spaces (as map matching runs them) costs what single routes cost', () => {
    const r = regionRouting(map, 'liechtenstein')!.mode(0)
    // every edge within 80 m of a point: candidates that share junction nodes, as a trace's do
    const groups = pointsOn('liechtenstein', 0, 30, 7).map((p) => candidates(r.net, 0, p.lon + 2e-4, p.lat, 80, 6))
    const spaces = r.spaces()
    let cells = 0
    for (let i = 1; i < groups.length; i++) {
      const m = r.matrix(groups[i - 1], groups[i], spaces)
      groups[i - 1].forEach((a, x) => groups[i].forEach((b, y) => {
        const single = r.cost(a, b)
        if (!single) expect(m[x][y]).toBeNull()
        else expect(m[x][y]!.w).toBeCloseTo(single.w, 6)
        cells++
      }))
    }
    expect(cells).toBeGreaterThan(300)
  })

  it('via-way restrictions (Liechtenstein): no route takes a restricted sequence, though some would be faster', () => {
    const db = map.db('liechtenstein')!
    const rows = db.prepare(`SELECT restriction, from_edge, via_edges, to_edge FROM turn_restrictions
      WHERE via_edges IS NOT NULL AND modes IS NULL AND restriction LIKE 'no_%'`).raw().all() as [string, number, string, number][]
    expect(rows.length).toBe(VIA_WAY_NO_ROWS)
    const r = regionRouting(map, 'liechtenstein')!.mode(0)
    const {g, net} = r
    const mid = (edge: number): Snap => {
      const s = net.geomOff[edge]
      return {edge, t: 0.5, lon: net.geom[s] / 1e7, lat: net.geom[s + 1] / 1e7, offset: 0}
    }
    const contains = (arcs: number[], seq: number[]) => arcs.some((_a, i) => seq.every((x, j) => arcs[i + j] === x))
    let faster = 0, checked = 0
    for (const [, from, via, to] of rows) {
      const restriction = {from: from - 1, to: to - 1, only: false, via: via.split(',').map(Number).map((e) => (e > 0 ? 2 * (e - 1) : 2 * (-e - 1) + 1))}
      for (const seq of arcSequences(net, restriction)) {
        if (!seq.every((a) => g.arcW[a] > 0)) continue
        const a = mid(from - 1), b = mid(to - 1)
        const fast = r.route(a, b, undefined, {uturns: true}), plain = r.dijkstra(a, {to: b}).path
        const [cell] = r.matrix([a], [b])[0]
        const restricted = 0.5 * g.arcT[seq[0]] + seq.slice(1, -1).reduce((sum, x) => sum + g.arcT[x], 0) + 0.5 * g.arcT[seq[seq.length - 1]]
        checked++
        if (!fast) continue // the restriction leaves no way round (a dead end behind it)
        expect(contains(fast.arcs, seq)).toBe(false)
        expect(contains(plain!.arcs, seq)).toBe(false)
        expect(contains(r.route(a, b)!.arcs, seq)).toBe(false) // nor when a turn round is mended
        expect(fast.w).toBeCloseTo(plain!.w, 6)
        expect(cell!.w).toBeCloseTo(fast.w, 6)
        if (restricted < fast.w) faster++
      }
    }
    expect(checked).toBeGreaterThan(0)
    expect(faster).toBeGreaterThan(0)
  })

  it('geometry encodings round-trip: polyline5, polyline6 and linestring describe the same line', () => {
    const q = {locations: [[7.4197, 43.7311], [7.4286, 43.7397]] as [number, number][], mode: 'car' as const, units: 'metric' as const, lang: 'en' as const, alternatives: false}
    const six = routeDirections(map, {...q, geometry: 'polyline6'}).routes[0].geometry as {polyline: string}
    const five = routeDirections(map, {...q, geometry: 'polyline5'}).routes[0].geometry as {polyline: string}
    const ls = routeDirections(map, {...q, geometry: 'linestring'}).routes[0].geometry as {linestring: {coordinates: [number, number][]}}
    const p6 = polyline.decode(six.polyline, 6), p5 = polyline.decode(five.polyline, 5)
    expect(p6.length).toBe(ls.linestring.coordinates.length)
    expect(p6.length).toBeGreaterThan(10)
    p6.forEach(([lat, lng], i) => {
      expect(lng).toBeCloseTo(ls.linestring.coordinates[i][0], 6)
      expect(lat).toBeCloseTo(ls.linestring.coordinates[i][1], 6)
    })
    expect(p5[0][0]).toBeCloseTo(p6[0][0], 5)
    expect(p5[p5.length - 1][1]).toBeCloseTo(p6[p6.length - 1][1], 5)
  })
})
