import Flatbush from 'flatbush'
import {haversine} from '../osm/geom.js'

const M_PER_DEG = 111_320

/** A location placed on an edge: `t` is the fraction of the edge's length from its source. */
export interface Snap {
  edge: number
  t: number
  lon: number
  lat: number
  /** metres from the input location */
  offset: number
  /** as a start: only leave in directions within 90° of this bearing (degrees clockwise from north) */
  heading?: number
}

export interface SnapNetwork {
  bush: Flatbush
  geomOff: Uint32Array
  geom: Int32Array
  length: Float32Array
  access: Uint8Array
}

/**
 * The nearest point on an edge `mode` (index in MODES) may use in some direction, within
 * `maxMeters`: boxes grow from 50 m until one holds an edge, then every edge in the box is measured
 * exactly (point to segment, in a local equirectangular projection). Edges `skip` names are left out.
 */
export function snap(net: SnapNetwork, k: number, lon: number, lat: number, maxMeters: number, skip?: (edge: number) => boolean): Snap | null {
  const kx = Math.cos((lat * Math.PI) / 180) * M_PER_DEG
  const mask = 3 << (2 * k)
  for (let r = 50; ; r = Math.min(r * 4, maxMeters)) {
    const dx = r / kx, dy = r / M_PER_DEG
    const found = net.bush.search(lon - dx, lat - dy, lon + dx, lat + dy, (i) => (net.access[i] & mask) !== 0 && !skip?.(i))
    let best: Snap | null = null
    for (const e of found) {
      const s = snapToEdge(net, e, lon, lat, kx)
      if (!best || s.offset < best.offset) best = s
    }
    // the flat offset chose the edge; the answer carries the great-circle one
    if (best && best.offset <= r) {
      best.offset = haversine(lon, lat, best.lon, best.lat)
      return best.offset <= maxMeters ? best : null
    }
    if (r >= maxMeters) return best && best.offset <= maxMeters ? {...best, offset: haversine(lon, lat, best.lon, best.lat)} : null
  }
}

/** Every edge of the mode within `radius` metres, nearest first, at most `max`, each at its nearest point. */
export function candidates(net: SnapNetwork, k: number, lon: number, lat: number, radius: number, max: number): Snap[] {
  const kx = Math.cos((lat * Math.PI) / 180) * M_PER_DEG
  const mask = 3 << (2 * k)
  const dx = radius / kx, dy = radius / M_PER_DEG
  const out: Snap[] = []
  for (const e of net.bush.search(lon - dx, lat - dy, lon + dx, lat + dy, (i) => (net.access[i] & mask) !== 0)) {
    const s = snapToEdge(net, e, lon, lat, kx)
    if (s.offset <= radius) out.push(s)
  }
  return out.sort((a, b) => a.offset - b.offset).slice(0, max)
}

function snapToEdge(net: SnapNetwork, e: number, lon: number, lat: number, kx: number): Snap {
  const s = net.geomOff[e], end = net.geomOff[e + 1]
  let total = 0
  for (let i = s; i + 2 < end; i += 2) total += Math.hypot((net.geom[i + 2] - net.geom[i]) * kx, (net.geom[i + 3] - net.geom[i + 1]) * M_PER_DEG) / 1e7
  let along = 0, best: Snap = {edge: e, t: 0, lon, lat, offset: Infinity}
  for (let i = s; i + 2 < end; i += 2) {
    const ax = (net.geom[i] / 1e7 - lon) * kx, ay = (net.geom[i + 1] / 1e7 - lat) * M_PER_DEG
    const bx = (net.geom[i + 2] / 1e7 - lon) * kx, by = (net.geom[i + 3] / 1e7 - lat) * M_PER_DEG
    const vx = bx - ax, vy = by - ay
    const l2 = vx * vx + vy * vy
    const u = l2 ? Math.max(0, Math.min(1, -(ax * vx + ay * vy) / l2)) : 0
    const px = ax + u * vx, py = ay + u * vy
    const d = Math.hypot(px, py)
    if (d < best.offset) best = {edge: e, t: total ? (along + u * Math.sqrt(l2)) / total : 0, lon: lon + px / kx, lat: lat + py / M_PER_DEG, offset: d}
    along += Math.sqrt(l2)
  }
  return best
}

/** Edge geometry as [lon, lat] pairs, from fraction t0 to t1 (t1 < t0 walks it backwards). */
export function edgeSlice(net: Pick<SnapNetwork, 'geomOff' | 'geom'>, e: number, t0: number, t1: number): [number, number][] {
  const s = net.geomOff[e], end = net.geomOff[e + 1]
  const pts: [number, number][] = []
  for (let i = s; i < end; i += 2) pts.push([net.geom[i] / 1e7, net.geom[i + 1] / 1e7])
  const rev = t1 < t0
  const a = rev ? t1 : t0, b = rev ? t0 : t1
  const cum = [0]
  for (let i = 1; i < pts.length; i++) cum.push(cum[i - 1] + haversine(pts[i - 1][0], pts[i - 1][1], pts[i][0], pts[i][1]))
  const total = cum[cum.length - 1] || 1
  const at = (f: number): [number, number] => {
    const target = f * total
    let i = 1
    while (i < pts.length - 1 && cum[i] < target) i++
    const seg = cum[i] - cum[i - 1]
    const u = seg ? (target - cum[i - 1]) / seg : 0
    return [pts[i - 1][0] + u * (pts[i][0] - pts[i - 1][0]), pts[i - 1][1] + u * (pts[i][1] - pts[i - 1][1])]
  }
  const out: [number, number][] = [a <= 0 ? pts[0] : at(a)]
  for (let i = 1; i < pts.length - 1; i++) if (cum[i] > a * total && cum[i] < b * total) out.push(pts[i])
  out.push(b >= 1 ? pts[pts.length - 1] : at(b))
  return rev ? out.reverse() : out
}
