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
 * A fixed equal-area pattern of points over the unit disc (Vogel's sunflower spiral), for the share
 * inside a grown polygon: within a few percent, and the same answer for the same fix every time.
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

let originInside = false

/**
 * `insideRing(…, 0, 0)` and `distanceToRing(…, 0, 0)` in one pass over the edges (the question
 * every candidate of every fix asks first): returns the distance, leaves the inside bit in
 * `originInside`.
 */
function originToRing(xs: Float64Array, ys: Float64Array, n: number): number {
  let inside = false
  let best = Infinity
  for (let i = 0, j = n - 1; i < n; j = i++) {
    const ax = xs[j], ay = ys[j], bx = xs[i], by = ys[i]
    if ((by > 0) !== (ay > 0) && 0 < ((ax - bx) * -by) / (ay - by) + bx) inside = !inside
    const dx = bx - ax, dy = by - ay
    const len = dx * dx + dy * dy
    let t = len === 0 ? 0 : (-ax * dx - ay * dy) / len
    t = t < 0 ? 0 : t > 1 ? 1 : t
    const ex = ax + t * dx, ey = ay + t * dy
    const d = ex * ex + ey * ey
    if (d < best) best = d
  }
  originInside = inside
  return Math.sqrt(best)
}

/**
 * For a ring around the origin: the radius of the largest disc at the origin inside it (0 when the
 * origin is outside) and of the smallest disc at the origin that holds it.
 */
export function ringRadii(xs: Float64Array, ys: Float64Array, n: number): {inner: number; outer: number} {
  const edge = originToRing(xs, ys, n)
  let outer = 0
  for (let i = 0; i < n; i++) outer = Math.max(outer, Math.sqrt(xs[i] * xs[i] + ys[i] * ys[i]))
  return {inner: originInside ? edge : 0, outer}
}

/**
 * Share of the disc (centre 0,0 in local metres, radius `r`) inside the ring, or inside the ring
 * grown by `grow` metres (exits). Exactly 1 or 0 when the centre is at least `r` from the boundary.
 * Otherwise, for the ring itself, the exact area of disc ∩ polygon (`discArea`); for the grown ring
 * (only the few geofences a user is inside), the share of the fixed sample pattern within `grow`
 * of it. A disc that crosses the boundary is never wholly inside.
 */
export function ringShare(xs: Float64Array, ys: Float64Array, n: number, r: number, grow = 0): number {
  const edge = originToRing(xs, ys, n)
  const inside = originInside
  if (r <= 0) return inside || edge <= grow ? 1 : 0
  if (inside && edge >= r) return 1
  if (!inside && edge - grow >= r) return 0
  let share: number
  if (grow === 0) {
    share = discArea(xs, ys, n, r) / (Math.PI * r * r)
  } else {
    let count = 0
    for (let i = 0; i < SAMPLES; i++) {
      const x = SAMPLE_X[i] * r, y = SAMPLE_Y[i] * r
      if (insideRing(xs, ys, n, x, y) || distanceToRing(xs, ys, n, x, y) <= grow) count++
    }
    share = count / SAMPLES
  }
  return Math.max(0, Math.min(share, 1 - 1e-9))
}

/**
 * The exact area of the disc (centre 0,0, radius r) ∩ the polygon: the sum over the ring's edges of
 * the signed area of the disc ∩ the triangle (centre, a, b) — a triangle, circular sectors, or both.
 */
export function discArea(xs: Float64Array, ys: Float64Array, n: number, r: number): number {
  let sum = 0
  for (let i = 0; i < n - 1; i++) sum += triangleArea(xs[i], ys[i], xs[i + 1], ys[i + 1], r)
  return Math.abs(sum)
}

const sector = (ax: number, ay: number, bx: number, by: number, r: number) =>
  (r * r * Math.atan2(ax * by - ay * bx, ax * bx + ay * by)) / 2

function triangleArea(ax: number, ay: number, bx: number, by: number, r: number): number {
  const r2 = r * r
  const da = ax * ax + ay * ay, db = bx * bx + by * by
  if (da <= r2 && db <= r2) return (ax * by - ay * bx) / 2
  const dx = bx - ax, dy = by - ay
  const A = dx * dx + dy * dy
  if (A === 0) return 0
  const B = ax * dx + ay * dy
  const disc = B * B - A * (da - r2)
  if (disc <= 0) return sector(ax, ay, bx, by, r)
  const root = Math.sqrt(disc)
  const t1 = (-B - root) / A, t2 = (-B + root) / A
  if (da <= r2) {
    const px = ax + t2 * dx, py = ay + t2 * dy
    return (ax * py - ay * px) / 2 + sector(px, py, bx, by, r)
  }
  if (db <= r2) {
    const px = ax + t1 * dx, py = ay + t1 * dy
    return sector(ax, ay, px, py, r) + (px * by - py * bx) / 2
  }
  if (t1 >= 1 || t2 <= 0) return sector(ax, ay, bx, by, r)
  const p1x = ax + t1 * dx, p1y = ay + t1 * dy, p2x = ax + t2 * dx, p2y = ay + t2 * dy
  return sector(ax, ay, p1x, p1y, r) + (p1x * p2y - p1y * p2x) / 2 + sector(p2x, p2y, bx, by, r)
}

/** DECISIONS: 3 the whole disc, 2 at least half, 1 any part, 0 none. */
export function confidenceOf(share: number): 0 | 1 | 2 | 3 {
  if (share >= 1) return 3
  if (share >= 0.5) return 2
  if (share > 0) return 1
  return 0
}
