/**
 * Text along a line: where on a polyline (image pixels) a label of a given width can follow the
 * road without sharp bends, and the position and angle of each glyph there.
 */

/** Largest bend at one vertex under a label, and the largest sum of bends (radians). */
const MAX_BEND = 0.5
const MAX_TURN = 0.9
const STEP = 8

/** A stretch of `width` pixels starting `start` pixels along the line, read left to right (`reversed` when against the line's direction). */
export interface Stretch {
  start: number
  width: number
  reversed: boolean
}

/** Cumulative lengths of a polyline's vertices. */
export function lengths(xy: ArrayLike<number>): Float64Array {
  const n = xy.length / 2
  const out = new Float64Array(n)
  for (let i = 1; i < n; i++) out[i] = out[i - 1] + Math.hypot(xy[i * 2] - xy[i * 2 - 2], xy[i * 2 + 1] - xy[i * 2 - 1])
  return out
}

/** The point and direction `at` pixels along the line. */
export function pointAt(xy: ArrayLike<number>, cum: Float64Array, at: number): [x: number, y: number, angle: number] {
  let i = 1
  while (i < cum.length - 1 && cum[i] < at) i++
  const x0 = xy[i * 2 - 2], y0 = xy[i * 2 - 1], x1 = xy[i * 2], y1 = xy[i * 2 + 1]
  const len = cum[i] - cum[i - 1]
  const t = len > 0 ? Math.min(1, Math.max(0, (at - cum[i - 1]) / len)) : 0
  return [x0 + (x1 - x0) * t, y0 + (y1 - y0) * t, Math.atan2(y1 - y0, x1 - x0)]
}

/**
 * Stretches of the line where `width` pixels of text fit inside `w` × `h` (with a margin) with no
 * bend sharper than MAX_BEND and at most MAX_TURN in all, straightest and most central first, at
 * most `limit`.
 */
export function stretches(xy: ArrayLike<number>, cum: Float64Array, width: number, w: number, h: number, limit = 3): Stretch[] {
  const total = cum[cum.length - 1]
  const found: {s: Stretch; turn: number}[] = []
  const inside = (x: number, y: number) => x > 6 && y > 6 && x < w - 6 && y < h - 6
  for (let start = 4; start + width + 4 <= total; start += STEP) {
    const end = start + width
    const [ax, ay] = pointAt(xy, cum, start)
    const [bx, by] = pointAt(xy, cum, end)
    if (!inside(ax, ay) || !inside(bx, by)) continue
    let turn = 0, ok = true
    for (let i = 1; i < cum.length - 1 && ok; i++) {
      if (cum[i] <= start || cum[i] >= end) continue
      if (!inside(xy[i * 2], xy[i * 2 + 1])) ok = false
      const a0 = Math.atan2(xy[i * 2 + 1] - xy[i * 2 - 1], xy[i * 2] - xy[i * 2 - 2])
      const a1 = Math.atan2(xy[i * 2 + 3] - xy[i * 2 + 1], xy[i * 2 + 2] - xy[i * 2])
      let d = Math.abs(a1 - a0)
      if (d > Math.PI) d = 2 * Math.PI - d
      if (d > MAX_BEND) ok = false
      turn += d
    }
    if (ok && turn <= MAX_TURN) found.push({s: {start, width, reversed: bx < ax}, turn})
  }
  // straightest first (in steps of ~3°), then nearest the middle of the room in view
  const middle = found.length ? (found[0].s.start + found[found.length - 1].s.start) / 2 : 0
  const bucket = (turn: number) => Math.round(turn / 0.05)
  found.sort((a, b) => bucket(a.turn) - bucket(b.turn) || Math.abs(a.s.start - middle) - Math.abs(b.s.start - middle))
  // spread out: a stretch overlapping a better one adds nothing
  const out: Stretch[] = []
  for (const f of found) {
    if (out.some((o) => Math.abs(o.start - f.s.start) < width)) continue
    out.push(f.s)
    if (out.length === limit) break
  }
  return out
}

/** Centre and angle of each glyph (by its advance) placed along a stretch, reading left to right. */
export function glyphs(xy: ArrayLike<number>, cum: Float64Array, s: Stretch, advances: number[]): [x: number, y: number, angle: number][] {
  const out: [number, number, number][] = []
  let offset = 0
  for (const adv of advances) {
    const mid = offset + adv / 2
    const at = s.reversed ? s.start + s.width - mid : s.start + mid
    const [x, y, angle] = pointAt(xy, cum, at)
    out.push([x, y, s.reversed ? angle + Math.PI : angle])
    offset += adv
  }
  return out
}
