import Flatbush from 'flatbush'
import {degreesAround} from './confidence.js'
import {type Fence, shapeLength} from './fence.js'

const f32 = new Float32Array(1)
const u32 = new Uint32Array(f32.buffer)
/** The nearest float32 at or beyond `v` in the direction of `sign` (-1 down, 1 up). */
function float32Beyond(v: number, sign: number): number {
  f32[0] = v
  const f = f32[0]
  if (f === v || sign * (f - v) > 0) return f
  // a float32's neighbour away from zero is the next bit pattern, towards zero the previous one
  if (f === 0) u32[0] = sign > 0 ? 1 : 0x80000001
  else u32[0] += sign * f > 0 ? 1 : -1
  return f32[0]
}

/** Boxes (minX, minY, maxX, maxY each) as float32 holding every float64 box. */
function outwards(boxes: Float64Array): Float32Array {
  const out = new Float32Array(boxes.length)
  for (let i = 0; i < boxes.length; i += 4) {
    out[i] = float32Beyond(boxes[i], -1)
    out[i + 1] = float32Beyond(boxes[i + 1], -1)
    out[i + 2] = float32Beyond(boxes[i + 2], 1)
    out[i + 3] = float32Beyond(boxes[i + 3], 1)
  }
  return out
}

/** Past this many changed geofences since the last build, the tree is rebuilt in the background. */
const OVERLAY_MAX = 256
/**
 * Rows read, or fences placed, between two turns of the event loop in a background rebuild:
 * ~5–15 ms each (a whole rebuild at 100k geofences took 2.5 s, every request waiting meanwhile).
 */
export const SLICE = 500
const NODE_SIZE = 16

/**
 * One environment's enabled geofences in a static packed Hilbert R-tree (flatbush, searched here
 * without allocating: flat typed arrays, fences and their shapes in the tree's leaf order) plus a
 * small overlay of geofences changed since it was built, scanned linearly; the tree is rebuilt from
 * memory once a batch of changes leaves the overlay past OVERLAY_MAX.
 */
export class EnvIndex {
  byId = new Map<string, Fence>()
  /** By tag, then externalId (unique within a tag per environment): a trip's destination. */
  private byTag = new Map<string, Map<string, Fence>>()
  /** The tree's fences in leaf order. */
  private fences: Fence[] = []
  /**
   * flatbush's boxes (leaves, then each level's nodes) as float32 rounded outwards, and per box the
   * item it was built from (leaves) or its first child's box offset (nodes). Half the bytes of
   * flatbush's float64: a search at 100k geofences reads ~10 leaf nodes of 16 boxes, most from
   * memory; a box grows by at most 1 ulp (5 cm around Monaco), and candidates are tested exactly.
   */
  private boxes: Float32Array = new Float32Array(0)
  private links: Uint16Array | Uint32Array = new Uint32Array(0)
  private levelEnds: number[] = []
  /** Per leaf: 1 once its fence was changed or removed after the build. */
  private dead = new Uint8Array(0)
  private stack = new Int32Array(0)
  private changed = new Set<string>()
  private overlay = new Map<string, Fence>()
  /** Leaves meeting the current search's box. */
  private hits = new Int32Array(0)
  /** A sum of one number of each candidate's shape: the reads must not be optimised away. */
  touched = 0

  put(fence: Fence): void {
    const old = this.byId.get(fence.id)
    this.drop(old)
    this.unkey(old)
    this.byId.set(fence.id, fence)
    this.key(fence)
    this.changed.add(fence.id)
    this.overlay.set(fence.id, fence)
  }

  remove(id: string): void {
    const fence = this.byId.get(id)
    if (!fence) return
    this.drop(fence)
    this.unkey(fence)
    this.byId.delete(id)
    this.changed.add(id)
    this.overlay.delete(id)
  }

  private drop(fence: Fence | undefined): void {
    if (fence && fence.slot >= 0 && this.fences[fence.slot] === fence) this.dead[fence.slot] = 1
  }

  /** The geofence with this tag and externalId. */
  keyed(tag: string, externalId: string): Fence | undefined {
    return this.byTag.get(tag)?.get(externalId)
  }

  /** The largest `tripApproachingThreshold` of the keyed geofences (0 when none has one). */
  largestTripApproachingThreshold(): number {
    let largest = 0
    for (const inTag of this.byTag.values()) {
      for (const fence of inTag.values()) if (fence.tripApproachingThreshold !== null && fence.tripApproachingThreshold > largest) largest = fence.tripApproachingThreshold
    }
    return largest
  }

  private key(fence: Fence): void {
    if (fence.tag === null || fence.externalId === null) return
    let inTag = this.byTag.get(fence.tag)
    if (!inTag) this.byTag.set(fence.tag, (inTag = new Map()))
    inTag.set(fence.externalId, fence)
  }

  /** Only while the key is still this fence's: changes are applied one geofence at a time, so another may have taken it already. */
  private unkey(fence: Fence | undefined): void {
    if (!fence || fence.tag === null || fence.externalId === null) return
    const inTag = this.byTag.get(fence.tag)
    if (inTag?.get(fence.externalId) !== fence) return
    inTag.delete(fence.externalId)
    if (inTag.size === 0) this.byTag.delete(fence.tag)
  }

  /**
   * Builds this new index of `all` a slice at a time: each `yield` is a point where the event loop
   * may run (the index is not in use until it is done).
   */
  *loading(all: Fence[]): Generator<void, void> {
    if (all.length === 0) return
    const tree = new Flatbush(all.length, NODE_SIZE)
    for (let k = 0; k < all.length; k++) {
      const f = all[k]
      tree.add(f.minLng, f.minLat, f.maxLng, f.maxLat)
      if (k % SLICE === SLICE - 1) yield
    }
    tree.finish()
    yield
    // flatbush's data (the layout Flatbush.from reads): an 8-byte header, the boxes of the leaves
    // and then of each level's nodes, then per box the item (leaves) or first child's box offset
    let n = all.length, nodes = n
    this.levelEnds = [n * 4]
    do {
      n = Math.ceil(n / NODE_SIZE)
      nodes += n
      this.levelEnds.push(nodes * 4)
    } while (n !== 1)
    const data = tree.data as ArrayBuffer
    this.boxes = outwards(new Float64Array(data, 8, nodes * 4))
    this.links = (nodes < 16384 ? new Uint16Array(data, 8 + nodes * 32, nodes) : new Uint32Array(data, 8 + nodes * 32, nodes)).slice()
    this.dead = new Uint8Array(all.length)
    this.hits = new Int32Array(all.length + NODE_SIZE)
    this.stack = new Int32Array(2 * NODE_SIZE * this.levelEnds.length)
    let length = 0
    for (const f of all) length += shapeLength(f.geo, f.at)
    const geo = new Float64Array(length)
    // each fence copied to a fresh object in leaf order: the candidates of a fix are then neighbours
    // in memory too (reading a scattered fence was half the cost of an evaluation at 100k)
    for (let k = 0, at = 0; k < all.length; k++) {
      const f = {...all[this.links[k]]}
      this.byId.set(f.id, f)
      this.key(f)
      const length = shapeLength(f.geo, f.at)
      geo.set(f.geo.subarray(f.at, f.at + length), at)
      f.geo = geo
      f.at = at
      f.slot = k
      this.fences.push(f)
      at += length
      if (k % SLICE === SLICE - 1) yield
    }
  }

  /** Whether so many geofences changed since the build that the tree should be built anew. */
  get worn(): boolean {
    return this.changed.size > OVERLAY_MAX
  }

  /** Fences whose bbox meets the box around lng/lat of `m` metres. */
  search(lng: number, lat: number, m: number): Fence[] {
    const [dLng, dLat] = degreesAround(m, lat)
    const minX = lng - dLng, minY = lat - dLat, maxX = lng + dLng, maxY = lat + dLat
    const out: Fence[] = []
    const {boxes, links, levelEnds, dead, stack, fences} = this
    let level = levelEnds.length - 1
    let pos = boxes.length - 4
    let top = 0, count = 0
    const hits = this.hits
    while (level >= 0) {
      const end = Math.min(pos + NODE_SIZE * 4, levelEnds[level])
      if (level === 0) {
        // most leaves of a visited node miss a box this small: counting beats branching on each
        for (; pos < end; pos += 4) {
          hits[count] = pos >> 2
          count += +(maxX >= boxes[pos]) & +(maxY >= boxes[pos + 1]) & +(minX <= boxes[pos + 2]) & +(minY <= boxes[pos + 3])
        }
      } else {
        for (; pos < end; pos += 4) {
          if (maxX < boxes[pos] || maxY < boxes[pos + 1] || minX > boxes[pos + 2] || minY > boxes[pos + 3]) continue
          stack[top++] = links[pos >> 2]
          stack[top++] = level - 1
        }
      }
      if (top === 0) break
      level = stack[--top]
      pos = stack[--top]
    }
    // touching each candidate's shape here, where the reads do not wait on each other, overlaps
    // their cache misses; the evaluation would otherwise stall on them one candidate at a time
    let touched = 0
    for (let i = 0; i < count; i++) {
      const k = hits[i]
      if (dead[k] !== 0) continue
      const f = fences[k]
      out.push(f)
      touched += f.geo[f.at]
    }
    this.touched = touched
    for (const f of this.overlay.values()) {
      if (f.maxLng >= minX && f.minLng <= maxX && f.maxLat >= minY && f.minLat <= maxY) out.push(f)
    }
    return out
  }

  get size(): number {
    return this.byId.size
  }
}
