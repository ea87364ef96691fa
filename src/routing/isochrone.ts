import type {ModeRouter} from './engine.js'
import type {Snap} from './snap.js'

const SECTORS = 120
const M_PER_DEG = 111_320

/**
 * The outline of what `router`'s mode reaches from `from` within `limit` deciseconds: a bounded
 * Dijkstra, then, in each of 120 sectors around the start, the farthest reached point (a node, or
 * the point along an edge where time runs out). The ring is star-shaped about the start, so it is
 * always a simple polygon; it is concave wherever the network reaches less far. `[lng, lat]`, closed.
 */
export function isochroneRing(router: ModeRouter, from: Snap, limit: number): [number, number][] {
  const {g, net} = router
  const run = router.dijkstra(from, {limit})
  const kx = Math.cos((from.lat * Math.PI) / 180) * M_PER_DEG
  const far = new Float64Array(SECTORS).fill(-1)
  const px = new Float64Array(SECTORS), py = new Float64Array(SECTORS)
  const add = (lon: number, lat: number) => {
    const dx = (lon - from.lon) * kx, dy = (lat - from.lat) * M_PER_DEG
    const d2 = dx * dx + dy * dy
    const s = Math.min(SECTORS - 1, Math.floor(((Math.atan2(dy, dx) + Math.PI) / (2 * Math.PI)) * SECTORS))
    if (d2 > far[s]) {
      far[s] = d2
      px[s] = lon
      py[s] = lat
    }
  }
  add(from.lon, from.lat)
  for (const v of run.touched) {
    const w = run.w[v]
    if (w > limit) continue
    const o = g.orig[v]
    add(net.nodes[2 * o] / 1e7, net.nodes[2 * o + 1] / 1e7)
    for (let i = g.gOff[v]; i < g.gOff[v + 1]; i++) {
      if (w + g.gW[i] <= limit) continue
      const arc = g.gX[i], e = arc >> 1
      const f = (limit - w) / g.gW[i]
      const s = net.geomOff[e], end = net.geomOff[e + 1]
      // a straight cut between the edge's ends is close enough at isochrone scale
      const [a, b] = arc & 1 ? [end - 2, s] : [s, end - 2]
      add((net.geom[a] + f * (net.geom[b] - net.geom[a])) / 1e7, (net.geom[a + 1] + f * (net.geom[b + 1] - net.geom[a + 1])) / 1e7)
    }
  }
  const ring: [number, number][] = []
  for (let s = 0; s < SECTORS; s++) if (far[s] > 0) ring.push([round7(px[s]), round7(py[s])])
  if (ring.length < 3) {
    // nothing reached beyond the start: a 25 m square around it
    const d = 25 / M_PER_DEG, dx = 25 / kx
    return [[from.lon - dx, from.lat - d], [from.lon + dx, from.lat - d], [from.lon + dx, from.lat + d], [from.lon - dx, from.lat + d], [from.lon - dx, from.lat - d]].map(([x, y]) => [round7(x), round7(y)])
  }
  ring.push(ring[0])
  return ring
}

const round7 = (n: number) => Math.round(n * 1e7) / 1e7
