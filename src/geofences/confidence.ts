import {haversine} from '../osm/geom.js'

/**
 * How much of a fix's accuracy disc lies inside a geofence (DECISIONS: confidence is that share).
 * Work is in local metres: an equirectangular projection around the fix, exact enough at geofence
 * scale (under 0.1 % over 10 km away from the poles).
 */
export const EARTH_RADIUS = 6371008.8
const RAD = Math.PI / 180
const M_PER_DEG = EARTH_RADIUS * RAD

/** Metres east and north of (lng0, lat0), with `cosLat0 = cos(lat0)`. */
export function localX(lng: number, lng0: number, cosLat0: number): number {
  let d = lng - lng0
  if (d > 180) d -= 360
  else if (d < -180) d += 360
  return d * M_PER_DEG * cosLat0
}
export const localY = (lat: number, lat0: number) => (lat - lat0) * M_PER_DEG

export {haversine}

/** Degrees of longitude and latitude that cover `m` metres around latitude `lat`. */
export function degreesAround(m: number, lat: number): [dLng: number, dLat: number] {
  const dLat = m / M_PER_DEG
  const cos = Math.cos(Math.min(89.9, Math.abs(lat)) * RAD)
  return [Math.min(360, dLat / cos), dLat]
}

/**
 * Share of a disc of radius `r` inside a circle of radius `R` whose centre is `d` away: the lens
 * area over the disc's area, exact. `r = 0` (an exact point) gives 1 or 0.
 */
export function circleShare(d: number, r: number, R: number): number {
  if (r <= 0) return d <= R ? 1 : 0
  if (d >= r + R) return 0
  if (d <= R - r) return 1
  if (d <= r - R) return (R * R) / (r * r)
  const a = r * r * Math.acos(clamp((d * d + r * r - R * R) / (2 * d * r)))
  const b = R * R * Math.acos(clamp((d * d + R * R - r * r) / (2 * d * R)))
  const c = 0.5 * Math.sqrt(Math.max(0, (-d + r + R) * (d + r - R) * (d - r + R) * (d + r + R)))
  return Math.min(1, Math.max(0, (a + b - c) / (Math.PI * r * r)))
}

const clamp = (x: number) => (x < -1 ? -1 : x > 1 ? 1 : x)

/**
 * A fixed equal-area pattern of points over the unit disc (Vogel's sunflower spiral): the share of
 * them inside a polygon estimates the disc's share inside within about 1/SAMPLES of the area of
 * the boundary band, a few percent at worst. Fixed, so the same fix always gives the same answer.
 */
export const SAMPLES = 256
export const SAMPLE_X = new Float64Array(SAMPLES)
export const SAMPLE_Y = new Float64Array(SAMPLES)
{
  const golden = Math.PI * (3 - Math.sqrt(5))
  for (let i = 0; i < SAMPLES; i++) {
    const rho = Math.sqrt((i + 0.5) / SAMPLES)
    SAMPLE_X[i] = rho * Math.cos(i * golden)
    SAMPLE_Y[i] = rho * Math.sin(i * golden)
  }
}

/**
 * A polygon ring in local metres around a fix: `xs`/`ys` hold the ring's vertices (closed: the last
 * equals the first). Answers whether a point is inside and how far it is from the boundary.
 */
export function insideRing(xs: Float64Array, ys: Float64Array, n: number, x: number, y: number): boolean {
  let inside = false
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const yi = ys[i], yj = ys[j]
    if ((yi > y) !== (yj > y) && x < ((xs[j] - xs[i]) * (y - yi)) / (yj - yi) + xs[i]) inside = !inside
  }
  return inside
}

export function distanceToRing(xs: Float64Array, ys: Float64Array, n: number, x: number, y: number): number {
  let best = Infinity
  for (let i = 0; i < n - 1; i++) {
    const ax = xs[i], ay = ys[i]
    const dx = xs[i + 1] - ax, dy = ys[i + 1] - ay
    const len = dx * dx + dy * dy
    let t = len === 0 ? 0 : ((x - ax) * dx + (y - ay) * dy) / len
    t = t < 0 ? 0 : t > 1 ? 1 : t
    const ex = ax + t * dx - x, ey = ay + t * dy - y
    const d = ex * ex + ey * ey
    if (d < best) best = d
  }
  return Math.sqrt(best)
}

/**
 * Share of the disc (centre 0,0 in local metres, radius `r`) inside the ring grown by `grow` metres
 * (0: the ring itself). Exactly 1 or 0 when the centre is at least `r` from the boundary; otherwise
 * the sampled share, never 1 (a disc that crosses the boundary is not wholly inside).
 */
export function ringShare(xs: Float64Array, ys: Float64Array, n: number, r: number, grow = 0): number {
  const inside = insideRing(xs, ys, n, 0, 0)
  const edge = distanceToRing(xs, ys, n, 0, 0)
  const centreIn = inside || edge <= grow
  if (r <= 0) return centreIn ? 1 : 0
  if (inside && edge >= r) return 1
  if (!inside && edge - grow >= r) return 0
  let count = 0
  for (let i = 0; i < SAMPLES; i++) {
    const x = SAMPLE_X[i] * r, y = SAMPLE_Y[i] * r
    if (insideRing(xs, ys, n, x, y) || (grow > 0 && distanceToRing(xs, ys, n, x, y) <= grow)) count++
  }
  return Math.min(count / SAMPLES, 1 - 1 / (2 * SAMPLES))
}

/** DECISIONS: 3 the whole disc, 2 at least half, 1 any part, 0 none. */
export function confidenceOf(share: number): 0 | 1 | 2 | 3 {
  if (share >= 1) return 3
  if (share >= 0.5) return 2
  if (share > 0) return 1
  return 0
}
