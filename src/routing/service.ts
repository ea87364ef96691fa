import type {MapData} from '../map/mapdata.js'
import {refuse} from '../errors.js'
import {haversine} from '../osm/geom.js'
import type {Entry, ModeRouter, Path} from './engine.js'
import {type GeometryKind, type Units, distanceOf, durationOf, geometryOf} from './format.js'
import {locate} from './index.js'
import {isochroneRing} from './isochrone.js'
import {Line, pieces} from './path.js'
import {AVOID_BITS, type Avoid, type Mode} from './profile.js'
import type {Snap} from './snap.js'
import {type Lang, legSteps} from './steps.js'

/** `[lng, lat]` */
export type Point = [number, number]

const latLngOf = (p: Point) => ({latitude: p[1], longitude: p[0]})
const avoidMask = (avoid: Avoid[] = []) => avoid.reduce((m, a) => m | AVOID_BITS[a], 0)

const tryRoute = (router: ModeRouter, a: Snap, b: Snap, avoid: number, entry?: Entry): Path | null => router.route(a, b, entry, {avoid})

function routeBetween(router: ModeRouter, a: Snap, b: Snap, avoid: number, param: string): Path {
  const path = tryRoute(router, a, b, avoid)
  if (!path) throw refuse.invalid(param, `must be reachable by road from the previous location${avoid ? ' without the avoided roads' : ''}`)
  return path
}

export interface DistanceInput {origin: Point; destination: Point; modes: Mode[]; units: Units; avoid?: Avoid[]; geometry: GeometryKind}

/** `GET /route/distance`: the geodesic distance and, per mode, the fastest route's distance and duration. */
export function routeDistance(map: MapData, q: DistanceInput) {
  const routes: Record<string, unknown> = {geodesic: {distance: distanceOf(haversine(q.origin[0], q.origin[1], q.destination[0], q.destination[1]), q.units)}}
  for (const mode of q.modes) {
    const avoid = avoidMask(q.avoid)
    const {router, snaps} = locate(map, mode, [q.origin, q.destination], (i) => (i ? 'destination' : 'origin'), avoid)
    const entry: Record<string, unknown> = {}
    if (q.geometry === 'none' && !avoid) {
      const c = router.cost(snaps[0], snaps[1])
      if (!c) throw refuse.invalid('destination', `must be reachable by ${mode} from origin`)
      entry.distance = distanceOf(c.meters, q.units)
      entry.duration = durationOf(c.w)
    } else {
      const path = routeBetween(router, snaps[0], snaps[1], avoid, 'destination')
      entry.distance = distanceOf(path.meters, q.units)
      entry.duration = durationOf(path.w)
      const g = geometryOf(pieces(router, path).line, q.geometry)
      if (g) entry.geometry = g
    }
    routes[mode] = entry
  }
  return {routes}
}

export interface MatrixInput {origins: Point[]; destinations: Point[]; mode: Mode; units: Units; avoid?: Avoid[]}

/** `GET /route/matrix`: many-to-many; a cell with no route has null distance and duration. */
export function routeMatrix(map: MapData, q: MatrixInput) {
  const all = [...q.origins, ...q.destinations]
  const avoid = avoidMask(q.avoid)
  const {router, snaps} = locate(map, q.mode, all, (i) => (i < q.origins.length ? 'origins' : 'destinations'), avoid)
  const from = snaps.slice(0, q.origins.length), to = snaps.slice(q.origins.length)
  const costs = avoid ? from.map((s) => to.map((t) => router.dijkstra(s, {to: t, avoid}).cost)) : router.matrix(from, to)
  return {
    origins: q.origins.map(latLngOf),
    destinations: q.destinations.map(latLngOf),
    matrix: costs.map((row, i) => row.map((c, j) => ({
      distance: c ? distanceOf(c.meters, q.units) : null,
      duration: c ? durationOf(c.w) : null,
      originIndex: i,
      destinationIndex: j,
    }))),
  }
}

export interface DirectionsInput {locations: Point[]; mode: Mode; units: Units; avoid?: Avoid[]; geometry: GeometryKind; lang: Lang; alternatives: boolean; heading?: number}

/** `GET /route/directions`: legs between consecutive locations, with steps and instructions. */
export function routeDirections(map: MapData, q: DirectionsInput) {
  const avoid = avoidMask(q.avoid)
  const {region, router, snaps} = locate(map, q.mode, q.locations, 'locations', avoid)
  const paths: Path[] = []
  for (let i = 1; i < snaps.length; i++) {
    // `heading` restricts how the first leg leaves its start, unless no route leaves that way; a
    // later leg goes on where the previous one arrived (a turn restriction under way holds on),
    // unless no route goes on from there.
    const start = i === 1 && q.heading !== undefined ? {...snaps[0], heading: q.heading} : snaps[i - 1]
    paths.push(tryRoute(router, start, snaps[i], avoid, paths[i - 2]?.end) ?? routeBetween(router, snaps[i - 1], snaps[i], avoid, 'locations'))
  }
  const build = (legPaths: Path[]) => {
    const all = new Line()
    let meters = 0, w = 0
    const legs = legPaths.map((path, i) => {
      const {line, pieces: ps} = pieces(router, path)
      if (legPaths.length > 1) all.append(line)
      meters += path.meters
      w += path.w
      const leg: Record<string, unknown> = {
        startLocation: latLngOf(q.locations[i]),
        endLocation: latLngOf(q.locations[i + 1]),
        distance: distanceOf(path.meters, q.units),
        duration: durationOf(path.w),
        steps: legSteps(region, q.mode, line, ps, {lang: q.lang, units: q.units, geometry: q.geometry, last: i === legPaths.length - 1, side: sideOf(line, q.locations[i + 1])}),
      }
      const g = geometryOf(line, q.geometry)
      if (g) leg.geometry = g
      return leg
    })
    const route: Record<string, unknown> = {distance: distanceOf(meters, q.units), duration: durationOf(w), legs}
    const g = legs.length === 1 ? legs[0].geometry : geometryOf(all, q.geometry) // one leg: the same line, encoded once
    if (g) route.geometry = g
    return route
  }
  const routes = [build(paths)]
  if (q.alternatives && paths.length === 1) {
    const alt = alternative(router, paths[0], avoid)
    if (alt) routes.push(build([alt]))
  }
  return {routes}
}

/** Which side of the road the destination lies on (more than 3 m off it), seen in the direction of travel. */
function sideOf(line: Line, dest: Point): 'left' | 'right' | undefined {
  if (line.n < 2) return undefined
  const a = [line.x(line.n - 2), line.y(line.n - 2)], b = [line.x(line.n - 1), line.y(line.n - 1)]
  if (haversine(b[0], b[1], dest[0], dest[1]) < 3) return undefined
  const cross = (b[0] - a[0]) * (dest[1] - a[1]) - (b[1] - a[1]) * (dest[0] - a[0])
  return cross > 0 ? 'left' : 'right'
}

/**
 * A second route by the penalty method: the best route's edges cost 3 times as much, then the
 * result is accepted if it shares at most 70 % of its length with the best and takes at most 1.5
 * times as long (its reported duration is its real one).
 */
function alternative(router: ModeRouter, best: Path, avoid: number): Path | null {
  const used = new Set(best.arcs.map((a) => a >> 1))
  const alt = router.dijkstra(best.from, {to: best.to, avoid, penalty: used}).path
  if (!alt) return null
  const path = router.mend(alt, {avoid})
  let shared = 0, w = 0
  for (const p of pieces(router, path).pieces) {
    if (used.has(p.edge)) shared += p.meters
    w += p.w
  }
  if (shared > 0.7 * path.meters || w > 1.5 * best.w) return null
  return {...path, w}
}

export interface OptimizeInput {locations: Point[]; mode: Mode; units: Units; geometry: GeometryKind}

/** `GET /route/optimize`: the exact fastest order (first and last fixed) by dynamic programming over subsets. */
export function routeOptimize(map: MapData, q: OptimizeInput) {
  const {router, snaps} = locate(map, q.mode, q.locations, 'locations')
  const costs = router.matrix(snaps, snaps)
  const order = bestOrder(costs.map((row) => row.map((c) => (c ? c.w : Infinity))))
  if (!order) throw refuse.invalid('locations', `must all be reachable by ${q.mode} from one another`)
  let meters = 0, w = 0
  const legs = order.slice(1).map((j, k) => {
    const i = order[k]
    const leg: Record<string, unknown> = {startLocation: latLngOf(q.locations[i]), endLocation: latLngOf(q.locations[j]), startIndex: i, endIndex: j}
    const c = costs[i][j]!
    meters += c.meters
    w += c.w
    leg.distance = distanceOf(c.meters, q.units)
    leg.duration = durationOf(c.w)
    if (q.geometry !== 'none') {
      const path = router.route(snaps[i], snaps[j])!
      leg.geometry = geometryOf(pieces(router, path).line, q.geometry)
    }
    return leg
  })
  return {route: {distance: distanceOf(meters, q.units), duration: durationOf(w), legs}}
}

/** Held–Karp: the cheapest order visiting every index once, starting at 0 and ending at n-1; null when none is finite. */
export function bestOrder(c: number[][]): number[] | null {
  const n = c.length
  if (n <= 2) return n === 2 && c[0][1] < Infinity ? [0, 1] : n === 1 ? [0] : null
  const mid = n - 2 // indexes 1..n-2
  const size = 1 << mid
  const dp = new Float64Array(size * mid).fill(Infinity)
  const parent = new Int8Array(size * mid).fill(-1)
  for (let j = 0; j < mid; j++) dp[(1 << j) * mid + j] = c[0][j + 1]
  for (let set = 1; set < size; set++) {
    for (let j = 0; j < mid; j++) {
      const here = dp[set * mid + j]
      if (!(set & (1 << j)) || here === Infinity) continue
      for (let k = 0; k < mid; k++) {
        if (set & (1 << k)) continue
        const next = set | (1 << k), v = here + c[j + 1][k + 1]
        if (v < dp[next * mid + k]) {
          dp[next * mid + k] = v
          parent[next * mid + k] = j
        }
      }
    }
  }
  let best = Infinity, last = -1
  for (let j = 0; j < mid; j++) {
    const v = dp[(size - 1) * mid + j] + c[j + 1][n - 1]
    if (v < best) (best = v), (last = j)
  }
  if (last < 0) return null
  const order = [n - 1]
  for (let set = size - 1, j = last; j >= 0;) {
    order.push(j + 1)
    const p = parent[set * mid + j]
    set &= ~(1 << j)
    j = p
  }
  order.push(0)
  return order.reverse()
}

/** The ring reachable from `center` within `minutes` by `mode`, or null where no road graph covers it. */
export function isochrone(map: MapData, center: Point, mode: Mode, minutes: number): Point[] | null {
  let located
  try {
    located = locate(map, mode, [center], 'coordinates')
  } catch {
    return null
  }
  return isochroneRing(located.router, located.snaps[0], minutes * 600)
}

/** Free-flow seconds and metres by road from `from` to `to` (`[lng, lat]`), or null where no graph connects them. */
export function eta(map: MapData, from: Point, to: Point, mode: Mode): {seconds: number; meters: number} | null {
  try {
    const {router, snaps} = locate(map, mode, [from, to], 'coordinates')
    const c = router.cost(snaps[0], snaps[1])
    return c && {seconds: c.w / 10, meters: c.meters}
  } catch {
    return null
  }
}
