import {type Coords, simplify} from '../osm/geom.js'
import {type Position, RING_MAX, ringProblem, round6} from './geometry.js'

/** A place's footprint: GeoJSON polygon coordinates per separate part, each `[outer, ...holes]`. */
export type Footprint = Position[][][]

/**
 * The area centroid of a footprint (holes taken out, parts weighted by area), rounded as polygon
 * centres are; null when it has no area. For a concave outline it may lie outside it.
 */
export function footprintCentroid(footprint: Footprint): Position | null {
  // in a frame at the first vertex, so that the products keep their precision
  const [x0, y0] = footprint[0][0][0]
  let area = 0, cx = 0, cy = 0
  for (const polygon of footprint) {
    polygon.forEach((ring, r) => {
      let a = 0, x = 0, y = 0
      for (let i = 1; i < ring.length; i++) {
        const xi = ring[i - 1][0] - x0, yi = ring[i - 1][1] - y0, xj = ring[i][0] - x0, yj = ring[i][1] - y0
        const cross = xi * yj - xj * yi
        a += cross
        x += (xi + xj) * cross
        y += (yi + yj) * cross
      }
      // outer rings add and holes take away, whichever way each is wound
      const sign = (r === 0) === (a > 0) ? 1 : -1
      area += (sign * a) / 2
      cx += (sign * x) / 6
      cy += (sign * y) / 6
    })
  }
  if (!(area > 0)) return null
  return [round6(x0 + cx / area), round6(y0 + cy / area)]
}

/**
 * A polygon geofence's ring from a footprint: its outer ring, holes dropped (the geofence covers
 * them: a courtyard is at the place), simplified when longer than RING_MAX positions. A footprint
 * of several separate parts is no one ring: its `problem` says so.
 */
export function footprintRing(footprint: Footprint): {ring: Position[]} | {problem: string} {
  if (footprint.length > 1) return {problem: `has ${footprint.length} separate parts`}
  const outer = footprint[0][0]
  const ring = outer.length > RING_MAX ? simplifiedRing(outer, RING_MAX) : outer
  const problem = ringProblem(ring)
  return problem ? {problem: `gives no valid ring (${problem})`} : {ring}
}

/**
 * The ring simplified (Douglas–Peucker, in degrees) with about the smallest tolerance that keeps
 * at most `max` positions: each one kept is one of the ring's own, first and last included.
 */
export function simplifiedRing(ring: Position[], max: number): Position[] {
  const flat: Coords = ring.flat()
  const fits = (tolerance: number) => simplify(flat, tolerance).length / 2 <= max
  let lo = 0, hi = 1e-7
  while (!fits(hi)) [lo, hi] = [hi, hi * 2]
  // 20 halvings: within a millionth of the doubling's step
  for (let step = 0; step < 20; step++) {
    const mid = (lo + hi) / 2
    if (fits(mid)) hi = mid
    else lo = mid
  }
  const kept = simplify(flat, hi)
  const out: Position[] = []
  for (let i = 0; i < kept.length; i += 2) out.push([kept[i], kept[i + 1]])
  return out
}
