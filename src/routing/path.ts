import type {ModeRouter, Path} from './engine.js'
import {edgeSlice} from './snap.js'

/**
 * Points `[lng, lat]` of a travelled line, flat in one growable array (no object per point: a long
 * route's thousands of points would be garbage the next moment). A point equal to the last one is
 * not added again.
 */
export class Line {
  xy = new Float64Array(512)
  /** points */
  n = 0

  push(x: number, y: number): void {
    const i = 2 * this.n
    if (this.n && this.xy[i - 2] === x && this.xy[i - 1] === y) return
    if (i === this.xy.length) {
      const more = new Float64Array(2 * this.xy.length)
      more.set(this.xy)
      this.xy = more
    }
    this.xy[i] = x
    this.xy[i + 1] = y
    this.n++
  }

  /** Appends points from..to (inclusive) of `other`. */
  append(other: Line, from = 0, to = other.n - 1): void {
    for (let i = from; i <= to; i++) this.push(other.xy[2 * i], other.xy[2 * i + 1])
  }

  x(i: number): number {
    return this.xy[2 * i]
  }

  y(i: number): number {
    return this.xy[2 * i + 1]
  }

  /** Degrees clockwise from north from point i to point j. */
  bearing(i: number, j: number): number {
    return bearing([this.x(i), this.y(i)], [this.x(j), this.y(j)])
  }
}

/** One travelled piece of a path: an arc from fraction t0 to t1 of its edge, points start..end of the line. */
export interface Piece {
  arc: number
  edge: number
  start: number
  end: number
  meters: number
  /** deciseconds */
  w: number
}

/** The path's arcs as pieces (the first and last partial), their points appended to `line`. */
export function pieces(router: ModeRouter, path: Path, line = new Line()): {line: Line; pieces: Piece[]} {
  const out: Piece[] = []
  const n = path.arcs.length
  const {net} = router
  let start = -1
  // the piece's first point may be the line's last already
  const add = (x: number, y: number) => {
    if (start < 0) start = line.n && line.x(line.n - 1) === x && line.y(line.n - 1) === y ? line.n - 1 : line.n
    line.push(x, y)
  }
  for (let i = 0; i < n; i++) {
    const arc = path.arcs[i]
    const e = arc >> 1, fwd = (arc & 1) === 0
    let t0 = fwd ? 0 : 1, t1 = fwd ? 1 : 0
    if (n === 1) {
      t0 = path.from.t
      t1 = path.to.t
    } else if (i === 0) t0 = path.from.t
    else if (i === n - 1) t1 = path.to.t
    const f = Math.abs(t1 - t0)
    if (f === 0 && n > 1) continue
    start = -1
    if (f === 1) {
      // the whole edge: its points as stored, no lengths needed
      const s = net.geomOff[e], end = net.geomOff[e + 1], g = net.geom
      if (fwd) for (let k = s; k < end; k += 2) add(g[k] / 1e7, g[k + 1] / 1e7)
      else for (let k = end - 2; k >= s; k -= 2) add(g[k] / 1e7, g[k + 1] / 1e7)
    } else for (const p of edgeSlice(net, e, t0, t1)) add(p[0], p[1])
    out.push({arc, edge: e, start, end: line.n - 1, meters: f * net.length[e], w: f * router.g.arcT[arc]})
  }
  return {line, pieces: out}
}

/** Degrees clockwise from north from a to b. */
export function bearing(a: [number, number], b: [number, number]): number {
  const r = Math.PI / 180
  const y = Math.sin((b[0] - a[0]) * r) * Math.cos(b[1] * r)
  const x = Math.cos(a[1] * r) * Math.sin(b[1] * r) - Math.sin(a[1] * r) * Math.cos(b[1] * r) * Math.cos((b[0] - a[0]) * r)
  return Math.round(((Math.atan2(y, x) / r) + 360) % 360)
}
