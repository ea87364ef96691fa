/**
 * Planar helpers on flat coordinate arrays `[lon0, lat0, lon1, lat1, ...]` in degrees. Rings are
 * closed (first point repeated at the end).
 */

export type Coords = number[]

const R = 6371008.8
const RAD = Math.PI / 180

export function haversine(lon1: number, lat1: number, lon2: number, lat2: number): number {
  const dLat = (lat2 - lat1) * RAD
  const dLon = (lon2 - lon1) * RAD
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(lat1 * RAD) * Math.cos(lat2 * RAD) * Math.sin(dLon / 2) ** 2
  return 2 * R * Math.asin(Math.min(1, Math.sqrt(a)))
}

export function lineLength(c: Coords): number {
  let d = 0
  for (let i = 2; i < c.length; i += 2) d += haversine(c[i - 2], c[i - 1], c[i], c[i + 1])
  return d
}

/** Shoelace area in square degrees; positive for counter-clockwise rings. */
export function signedArea(c: Coords): number {
  let s = 0
  for (let i = 2; i < c.length; i += 2) s += (c[i - 2] - c[i]) * (c[i - 1] + c[i + 1])
  return s / 2
}

export function pointInRing(x: number, y: number, c: Coords): boolean {
  let inside = false
  for (let i = 0, j = c.length - 2; i < c.length; j = i, i += 2) {
    const xi = c[i], yi = c[i + 1], xj = c[j], yj = c[j + 1]
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}

/** [minX, minY, maxX, maxY] */
export function bbox(c: Coords, into: number[] = [Infinity, Infinity, -Infinity, -Infinity]): number[] {
  for (let i = 0; i < c.length; i += 2) {
    if (c[i] < into[0]) into[0] = c[i]
    if (c[i + 1] < into[1]) into[1] = c[i + 1]
    if (c[i] > into[2]) into[2] = c[i]
    if (c[i + 1] > into[3]) into[3] = c[i + 1]
  }
  return into
}

/** Mean of the distinct vertices: cheap and good enough for building-sized rings. */
export function vertexMean(c: Coords, closed: boolean): [number, number] {
  const n = (closed ? c.length - 2 : c.length) / 2
  let x = 0, y = 0
  for (let i = 0; i < n * 2; i += 2) {
    x += c[i]
    y += c[i + 1]
  }
  return [x / n, y / n]
}

/**
 * A point guaranteed inside a polygon (outer ring + holes): the middle of the widest span on the
 * horizontal line through the bbox centre. Centroids of concave admin areas can fall outside.
 */
export function interiorPoint(rings: Coords[]): [number, number] {
  const b = bbox(rings[0])
  const y = (b[1] + b[3]) / 2 + (b[3] - b[1]) * 1e-7
  const xs: number[] = []
  for (const c of rings) {
    for (let i = 2; i < c.length; i += 2) {
      const y0 = c[i - 1], y1 = c[i + 1]
      if (y0 > y !== y1 > y) xs.push(c[i - 2] + ((y - y0) * (c[i] - c[i - 2])) / (y1 - y0))
    }
  }
  xs.sort((a, b) => a - b)
  let best = -1, bx = (b[0] + b[2]) / 2
  for (let i = 0; i + 1 < xs.length; i += 2) {
    if (xs[i + 1] - xs[i] > best) {
      best = xs[i + 1] - xs[i]
      bx = (xs[i] + xs[i + 1]) / 2
    }
  }
  return [bx, y]
}

/** Douglas–Peucker with an explicit stack; keeps endpoints (so rings stay closed). */
export function simplify(c: Coords, tolerance: number): Coords {
  const n = c.length / 2
  if (n <= 2 || tolerance <= 0) return c
  const keep = new Uint8Array(n)
  keep[0] = keep[n - 1] = 1
  const stack = [0, n - 1]
  const t2 = tolerance * tolerance
  while (stack.length) {
    const last = stack.pop()!, first = stack.pop()!
    let maxD = 0, index = -1
    const ax = c[first * 2], ay = c[first * 2 + 1], dx = c[last * 2] - ax, dy = c[last * 2 + 1] - ay
    const len2 = dx * dx + dy * dy
    for (let i = first + 1; i < last; i++) {
      let px = c[i * 2] - ax, py = c[i * 2 + 1] - ay
      if (len2 > 0) {
        const t = Math.max(0, Math.min(1, (px * dx + py * dy) / len2))
        px -= t * dx
        py -= t * dy
      }
      const d = px * px + py * py
      if (d > maxD) {
        maxD = d
        index = i
      }
    }
    if (maxD > t2) {
      keep[index] = 1
      stack.push(first, index, index, last)
    }
  }
  const out: Coords = []
  for (let i = 0; i < n; i++) if (keep[i]) out.push(c[i * 2], c[i * 2 + 1])
  return out
}

/**
 * Joins way segments (node-index sequences) into closed rings by matching endpoints. Returns null
 * when any segment cannot be closed into a ring: the relation is broken (usually cut by the extract).
 */
export function joinRings(segments: Int32Array[]): Int32Array[] | null {
  const byEnd = new Map<number, number[]>()
  const add = (node: number, i: number) => {
    const list = byEnd.get(node)
    if (list) list.push(i)
    else byEnd.set(node, [i])
  }
  segments.forEach((s, i) => {
    add(s[0], i)
    add(s[s.length - 1], i)
  })
  const used = new Uint8Array(segments.length)
  const rings: Int32Array[] = []
  for (let start = 0; start < segments.length; start++) {
    if (used[start]) continue
    used[start] = 1
    const ring: number[] = Array.from(segments[start])
    while (ring[0] !== ring[ring.length - 1]) {
      const end = ring[ring.length - 1]
      const next = byEnd.get(end)?.find((i) => !used[i])
      if (next === undefined) return null
      used[next] = 1
      const s = segments[next]
      if (s[0] === end) for (let k = 1; k < s.length; k++) ring.push(s[k])
      else for (let k = s.length - 2; k >= 0; k--) ring.push(s[k])
    }
    if (ring.length >= 4) rings.push(Int32Array.from(ring))
  }
  return rings.length ? rings : null
}

/**
 * Groups closed rings into polygons by nesting depth (even depth = outer, odd = hole of its
 * immediate container), so relations with wrong or missing roles still assemble. Outer rings come
 * out counter-clockwise and holes clockwise (RFC 7946).
 */
export function nestRings(rings: Coords[]): Coords[][] {
  const order = rings.map((c, i) => ({c, i, a: Math.abs(signedArea(c)), b: bbox(c)})).sort((p, q) => q.a - p.a)
  const parent = new Int32Array(order.length).fill(-1)
  const depth = new Int32Array(order.length)
  for (let k = 1; k < order.length; k++) {
    const {c, b} = order[k]
    const x = c[0], y = c[1]
    for (let j = k - 1; j >= 0; j--) {
      const pb = order[j].b
      if (x < pb[0] || x > pb[2] || y < pb[1] || y > pb[3] || b[2] > pb[2] || b[0] < pb[0]) continue
      if (pointInRing(x, y, order[j].c)) {
        parent[k] = j
        depth[k] = depth[j] + 1
        break
      }
    }
  }
  const polygons = new Map<number, Coords[]>()
  for (let k = 0; k < order.length; k++) {
    const ring = order[k].c
    const ccw = signedArea(ring) > 0
    if (depth[k] % 2 === 0) polygons.set(k, [ccw ? ring : reverse(ring)])
    else polygons.get(parent[k])?.push(ccw ? reverse(ring) : ring)
  }
  return [...polygons.values()]
}

function reverse(c: Coords): Coords {
  const out: Coords = new Array(c.length)
  for (let i = 0; i < c.length; i += 2) {
    out[c.length - 2 - i] = c[i]
    out[c.length - 1 - i] = c[i + 1]
  }
  return out
}

/** GeoJSON coordinate nesting from flat arrays, rounded to 1e-7 degrees. */
export function toPositions(c: Coords): number[][] {
  const out: number[][] = new Array(c.length / 2)
  for (let i = 0; i < c.length; i += 2) out[i / 2] = [round7(c[i]), round7(c[i + 1])]
  return out
}

export function round7(v: number): number {
  return Math.round(v * 1e7) / 1e7
}
