import type {Coords} from '../osm/geom.js'

/** [minLon, minLat, maxLon, maxLat] */
export type Box = [number, number, number, number]

/**
 * Sea polygons from coastline ways, which OSM draws with land on the left and water on the right.
 * Ways are joined into chains; a closed chain is an island (a hole, filled even-odd); an open chain
 * (cut by the extract) is extended along its last stretch to the edge of `box`, and the sea rings
 * are closed by walking the box's edge clockwise from where one chain leaves to where the next
 * enters, which keeps the water on the right. Returns rings for an even-odd fill, or [] when the
 * extract has no coastline.
 */
export function seaRings(ways: Coords[], box: Box): Coords[] {
  const chains = joinChains(ways)
  const islands = chains.filter(closed)
  const open = chains.filter((c) => !closed(c)).map((c) => extendToBox(c, box))
  if (!open.length) return islands.length ? [boxRing(box), ...islands] : []
  const [minX, minY, maxX, maxY] = box
  const w = maxX - minX, h = maxY - minY
  // position along the box's edge, clockwise from the top-left corner
  const around = (x: number, y: number) => {
    const d = [Math.abs(y - maxY), Math.abs(x - maxX), Math.abs(y - minY), Math.abs(x - minX)]
    const side = d.indexOf(Math.min(...d))
    return side === 0 ? x - minX : side === 1 ? w + (maxY - y) : side === 2 ? w + h + (maxX - x) : 2 * w + h + (y - minY)
  }
  const corners: [number, number, number][] = [[0, minX, maxY], [w, maxX, maxY], [w + h, maxX, minY], [2 * w + h, minX, minY]]
  const perimeter = 2 * (w + h)
  const starts = open.map((c) => around(c[0], c[1]))
  const ends = open.map((c) => around(c[c.length - 2], c[c.length - 1]))
  const used = new Uint8Array(open.length)
  const rings: Coords[] = []
  for (let first = 0; first < open.length; first++) {
    if (used[first]) continue
    const ring: Coords = []
    let i = first
    for (let guard = 0; guard <= open.length; guard++) {
      used[i] = 1
      ring.push(...open[i])
      // the next chain entering clockwise from where this one leaves
      const from = ends[i]
      let next = -1, best = Infinity
      for (let j = 0; j < open.length; j++) {
        const d = (starts[j] - from + perimeter) % perimeter
        if (d < best) {
          best = d
          next = j
        }
      }
      for (let k = 0; k < 8; k++) {
        const [t, x, y] = corners[k % 4]
        const d = (t + (k >= 4 ? perimeter : 0) - from)
        if (d > 0 && d < best) ring.push(x, y)
      }
      i = next
      if (used[i]) break
    }
    ring.push(ring[0], ring[1])
    rings.push(ring)
  }
  return [...rings, ...islands]
}

const closed = (c: Coords) => c.length >= 8 && c[0] === c[c.length - 2] && c[1] === c[c.length - 1]

function boxRing([minX, minY, maxX, maxY]: Box): Coords {
  return [minX, maxY, maxX, maxY, maxX, minY, minX, minY, minX, maxY]
}

/** Joins lines end to start (coastline ways keep their direction) into the longest chains. */
export function joinChains(ways: Coords[]): Coords[] {
  const key = (x: number, y: number) => `${Math.round(x * 1e7)},${Math.round(y * 1e7)}`
  const byStart = new Map<string, number>()
  ways.forEach((c, i) => byStart.set(key(c[0], c[1]), i))
  const used = new Uint8Array(ways.length)
  const hasPred = new Uint8Array(ways.length)
  ways.forEach((c) => {
    const j = byStart.get(key(c[c.length - 2], c[c.length - 1]))
    if (j !== undefined) hasPred[j] = 1
  })
  const chains: Coords[] = []
  // chains that start somewhere first, then what is left (rings)
  const order = [...ways.keys()].sort((a, b) => hasPred[a] - hasPred[b])
  for (const s of order) {
    if (used[s]) continue
    const chain: Coords = [...ways[s]]
    used[s] = 1
    for (;;) {
      const j = byStart.get(key(chain[chain.length - 2], chain[chain.length - 1]))
      if (j === undefined || used[j]) break
      used[j] = 1
      for (let k = 2; k < ways[j].length; k++) chain.push(ways[j][k])
    }
    chains.push(chain)
  }
  return chains
}

/** Prolongs both ends of an open chain along its last stretch (~the last 300 m) to the box edge. */
function extendToBox(c: Coords, box: Box): Coords {
  const n = c.length / 2
  const head = ray(c, 0, 1, n, box)
  const tail = ray(c, n - 1, -1, n, box)
  return [...head.reverse().flat(), ...c, ...tail.flat()].flat()
}

function ray(c: Coords, end: number, step: number, n: number, box: Box): [number, number][] {
  const ex = c[end * 2], ey = c[end * 2 + 1]
  let k = end + step
  while (k > 0 && k < n - 1 && Math.hypot(c[k * 2] - ex, c[k * 2 + 1] - ey) < 0.003) k += step
  if (k < 0 || k >= n) return []
  let dx = ex - c[k * 2], dy = ey - c[k * 2 + 1]
  const len = Math.hypot(dx, dy)
  if (!len) return []
  dx /= len
  dy /= len
  const [minX, minY, maxX, maxY] = box
  let t = Infinity
  if (dx > 0) t = Math.min(t, (maxX - ex) / dx)
  if (dx < 0) t = Math.min(t, (minX - ex) / dx)
  if (dy > 0) t = Math.min(t, (maxY - ey) / dy)
  if (dy < 0) t = Math.min(t, (minY - ey) / dy)
  if (!Number.isFinite(t) || t <= 0) return []
  const x = Math.min(maxX, Math.max(minX, ex + dx * t)), y = Math.min(maxY, Math.max(minY, ey + dy * t))
  return [[x, y]]
}
