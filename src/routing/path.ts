import {haversine} from '../osm/geom.js'
import type {ModeRouter, Path} from './engine.js'
import {extend} from './format.js'
import {edgeSlice} from './snap.js'

/** One travelled piece of a path: an arc from fraction t0 to t1 of its edge. */
export interface Piece {
  arc: number
  edge: number
  points: [number, number][]
  meters: number
  /** deciseconds */
  w: number
}

/** The path's arcs as pieces with their geometry, metres and time (the first and last partial). */
export function pieces(router: ModeRouter, path: Path): Piece[] {
  const out: Piece[] = []
  const n = path.arcs.length
  path.arcs.forEach((arc, i) => {
    const e = arc >> 1, fwd = (arc & 1) === 0
    let t0 = fwd ? 0 : 1, t1 = fwd ? 1 : 0
    if (n === 1) {
      t0 = path.from.t
      t1 = path.to.t
    } else if (i === 0) t0 = path.from.t
    else if (i === n - 1) t1 = path.to.t
    const f = Math.abs(t1 - t0)
    if (f === 0 && n > 1) return
    out.push({arc, edge: e, points: edgeSlice(router.net, e, t0, t1), meters: f * router.net.length[e], w: f * router.g.arcT[arc]})
  })
  return out
}

export function line(ps: Piece[]): [number, number][] {
  const pts: [number, number][] = []
  for (const p of ps) extend(pts, p.points)
  return pts
}

/** Degrees clockwise from north from a to b. */
export function bearing(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180
  const y = Math.sin((b[0] - a[0]) * r) * Math.cos(b[1] * r)
  const x = Math.cos(a[1] * r) * Math.sin(b[1] * r) - Math.sin(a[1] * r) * Math.cos(b[1] * r) * Math.cos((b[0] - a[0]) * r)
  return Math.round(((Math.atan2(y, x) / r) + 360) % 360)
}

export function lineMeters(pts: [number, number][]): number {
  let m = 0
  for (let i = 1; i < pts.length; i++) m += haversine(pts[i - 1][0], pts[i - 1][1], pts[i][0], pts[i][1])
  return m
}
