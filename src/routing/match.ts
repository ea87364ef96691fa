import type {MapData} from '../map/mapdata.js'
import {refuse} from '../errors.js'
import {haversine} from '../osm/geom.js'
import type {Entry, ModeRouter, Path, RegionRouting} from './engine.js'
import {type GeometryKind, type Units, distanceOf, geometryOf} from './format.js'
import {regionRouting} from './index.js'
import {Line, pieces} from './path.js'
import {type Mode, MODES} from './profile.js'
import {type Snap, candidates} from './snap.js'

export interface TracePoint {
  /** [lng, lat] */
  at: [number, number]
  createdAt?: string
  accuracy?: number
}

export interface MatchInput {path: TracePoint[]; mode: Mode; roadAttributes: ('speedLimit' | 'names' | 'roadClass')[]; units: Units; geometry: GeometryKind}

const SEARCH_M = 50
const MAX_CANDIDATES = 6
const BETA = 5
const EMISSION_GAP = 12
/** the spec's road classes, from OSM highway values */
const ROAD_CLASS: Record<string, string> = {
  motorway: 'motorway', motorway_link: 'motorway', trunk: 'trunk', trunk_link: 'trunk', primary: 'primary', primary_link: 'primary',
  secondary: 'secondary', secondary_link: 'secondary', tertiary: 'tertiary', tertiary_link: 'tertiary', residential: 'residential',
  living_street: 'residential', unclassified: 'unclassified',
}

/**
 * Hidden Markov map matching (Newson & Krumm): candidates are the mode's edges within 50 m (or
 * 3 × accuracy) of each point; emission is Gaussian in the distance to the road (σ = accuracy, 5 m
 * by default); transition is exponential in |route distance − straight distance| (β = 5 m), routes
 * from the contraction hierarchy's many-to-many search, and with `createdAt` a route that would need
 * more than 1.5 × the mode's free-flow time plus 30 s is ruled out. Viterbi picks the sequence; a
 * point with no candidate, or a break where no transition is possible, starts a new segment.
 */
export function matchTrace(map: MapData, q: MatchInput) {
  const k = MODES.indexOf(q.mode)
  const first = q.path[0].at
  const region = map.regions().map((r) => regionRouting(map, r.name)).find((r) => r && r.mode(k).snap(first[0], first[1], 200))
  if (!region) throw refuse.invalid('path', `must lie along roads open to ${q.mode} in an imported region`)
  const router = region.mode(k)
  const spaces = router.spaces()
  const emission = (p: TracePoint, s: Snap) => {
    const sigma = Math.max(1, p.accuracy ?? 5)
    return -0.5 * (s.offset / sigma) ** 2
  }
  // a candidate whose emission trails the point's best by more than EMISSION_GAP (e^-12: ~5 σ
  // further from the fix) would need a route that much likelier to win: left out, it costs no
  // searches (each candidate is a search forward and one backward; they were 89 % of a match)
  const cands: Snap[][] = q.path.map((p) => {
    const found = candidates(router.net, k, p.at[0], p.at[1], Math.max(SEARCH_M, 3 * (p.accuracy ?? 0)), MAX_CANDIDATES)
    const best = Math.max(...found.map((s) => emission(p, s)))
    return found.filter((s) => emission(p, s) >= best - EMISSION_GAP)
  })
  // Viterbi over the points that have candidates; a segment breaks where nothing connects.
  const chosen: (Snap | null)[] = q.path.map(() => null)
  const prevOf = new Int32Array(q.path.length).fill(-1)
  const back: number[][] = q.path.map(() => [])
  const segmentStarts = new Set<number>()
  let prevIdx = -1
  let score: number[] = []
  const finish = (last: number) => {
    let j = score.indexOf(Math.max(...score))
    for (let i = last; ; i = prevOf[i]) {
      chosen[i] = cands[i][j]
      if (prevOf[i] < 0) break
      j = back[i][j]
    }
  }
  for (let i = 0; i < q.path.length; i++) {
    if (!cands[i].length) continue
    const em = cands[i].map((s) => emission(q.path[i], s))
    let next: number[] | null = null
    if (prevIdx >= 0) {
      const a = q.path[prevIdx], b = q.path[i]
      const straight = haversine(a.at[0], a.at[1], b.at[0], b.at[1])
      const seconds = a.createdAt && b.createdAt ? (Date.parse(b.createdAt) - Date.parse(a.createdAt)) / 1000 : NaN
      const costs = router.matrix(cands[prevIdx], cands[i], spaces)
      const best = cands[i].map(() => -Infinity)
      const from = cands[i].map(() => -1)
      for (let x = 0; x < cands[prevIdx].length; x++) {
        for (let y = 0; y < cands[i].length; y++) {
          const c = costs[x][y]
          if (!c || (Number.isFinite(seconds) && c.w / 10 > 1.5 * seconds + 30)) continue
          const v = score[x] - Math.abs(c.meters - straight) / BETA + em[y]
          if (v > best[y]) {
            best[y] = v
            from[y] = x
          }
        }
      }
      if (best.some((v) => v > -Infinity)) {
        next = best
        back[i] = from
        prevOf[i] = prevIdx
      } else finish(prevIdx)
    }
    if (!next) segmentStarts.add(i)
    score = next ?? em
    prevIdx = i
  }
  if (prevIdx >= 0) finish(prevIdx)

  const matchedPath: {latitude: number; longitude: number; originalIndex: number}[] = []
  const points = new Line()
  const legs: Path[] = []
  let last: Snap | null = null
  let entry: Entry | undefined
  let meters = 0
  chosen.forEach((s, i) => {
    if (!s) return
    matchedPath.push({latitude: round6(s.lat), longitude: round6(s.lon), originalIndex: i})
    if (last && !segmentStarts.has(i)) {
      // going on where the previous leg arrived: a turn restriction under way holds at a trace point
      const p = router.route(last, s, entry, {uturns: true}) ?? router.route(last, s, undefined, {uturns: true})
      entry = p?.end
      if (p) {
        legs.push(p)
        meters += p.meters
        pieces(router, p, points)
      }
    } else {
      points.push(s.lon, s.lat)
      entry = undefined
    }
    last = s
  })
  if (!matchedPath.length) throw refuse.invalid('path', `must lie along roads open to ${q.mode} in an imported region (no point within ${SEARCH_M} m of one)`)
  const out: Record<string, unknown> = {matchedPath, distance: distanceOf(meters, q.units)}
  if (q.roadAttributes.length) out.roadAttributes = roadAttributes(region.names!, router, legs, q)
  const g = geometryOf(points, q.geometry)
  if (g) out.geometry = g
  return out
}

function roadAttributes(names: NonNullable<RegionRouting['names']>, router: ModeRouter, legs: Path[], q: MatchInput) {
  const out: Record<string, unknown>[] = []
  let prevKey = ''
  for (const leg of legs) {
    const {line, pieces: ps} = pieces(router, leg)
    for (const p of ps) {
      if (!p.meters) continue
      const info = names(p.edge)
      const maxspeed = info.maxspeed
      const key = `${info.name}|${info.ref}|${info.highway}|${maxspeed}`
      const start = [line.x(p.start), line.y(p.start)], end = [line.x(p.end), line.y(p.end)]
      if (key === prevKey) {
        out[out.length - 1].endLocation = {latitude: end[1], longitude: end[0]}
        continue
      }
      prevKey = key
      const a: Record<string, unknown> = {startLocation: {latitude: start[1], longitude: start[0]}, endLocation: {latitude: end[1], longitude: end[0]}}
      if (q.roadAttributes.includes('roadClass')) a.roadClass = ROAD_CLASS[info.highway ?? ''] ?? 'service_other'
      if (q.roadAttributes.includes('names')) a.names = [info.name, info.ref].filter(Boolean)
      if (q.roadAttributes.includes('speedLimit')) a.speedLimit = maxspeed === null ? null : q.units === 'metric' ? {value: maxspeed, text: `${maxspeed} km/h`} : {value: Math.round(maxspeed / 1.609344), text: `${Math.round(maxspeed / 1.609344)} mph`}
      out.push(a)
    }
  }
  return out
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6
