import {BlockList} from 'node:net'
import Flatbush from 'flatbush'
import type {Statement} from 'better-sqlite3'
import {type EventPart, partOf} from '../events/parts.js'
import {type Change, followed} from '../store/changes.js'
import type {Store} from '../store/db.js'
import {circleShare, degreesAround, distanceToRing, haversine, insideRing, localX, localY, ringRadii, ringShare} from './confidence.js'
import {blockListOf} from './ip.js'
import type {OperatingHours} from './operating-hours.js'

/** An enabled geofence as the engine holds it: what evaluation needs, parsed once. */
export interface Fence {
  /**
   * The shape as numbers at `geo[at…]` (layout below): the environment packs the shapes of its
   * tree into one array in the tree's order, so the candidates of a fix lie side by side in memory.
   */
  geo: Float64Array
  at: number
  /** Position in its environment's tree; -1 while in the overlay. */
  slot: number
  /**
   * Whether `userIds`, `ips` or `disableAfter` may refuse a fix. Most geofences have none, and this
   * flag, next to the fields every evaluation reads, spares reading the others (a cache miss or two
   * each at 100k geofences).
   */
  limited: boolean
  id: string
  live: boolean
  tag: string | null
  externalId: string | null
  type: string
  /** Circles are evaluated exactly from centre and radius; polygons and isochrones from the ring. */
  circle: boolean
  lng: number
  lat: number
  radius: number
  minLng: number
  minLat: number
  maxLng: number
  maxLat: number
  userIds: Set<string> | null
  ips: BlockList | null
  stopDetection: boolean | null
  hours: OperatingHours | null
  /** epoch ms; Infinity when unset */
  disableAfter: number
  dwellThreshold: number | null
  tripApproachingThreshold: number | null
  /** What `user.geofences` and events carry. */
  summary: Record<string, unknown>
  /** `summary` as JSON, made on first use (`summaryText`). */
  summaryJson?: string
  /** `summary` as an event part, made on first use (`summaryPart`). */
  part?: EventPart
  /** Order of geofences in answers and events: tag, externalId, `_id`. */
  sortKey: string
}

/**
 * A shape's numbers, from `at`: the centre, the cosine of its latitude, the radius (circles) or
 * the radius of the smallest centred disc holding the ring, the radius of the largest centred disc
 * inside the ring (0 when the centre is outside it), the bbox, the vertex count (0 for circles),
 * then the ring's vertices as metres from the centre, interleaved and closed, east unscaled by the
 * cosine of latitude (the fix's cosine scales it). The two radii are in the centre's frame.
 */
const LNG = 0, LAT = 1, COS = 2, OUTER = 3, INNER = 4, MIN_LNG = 5, MIN_LAT = 6, MAX_LNG = 7, MAX_LAT = 8, VERTICES = 9, RING = 10
const shapeLength = (geo: Float64Array, at: number) => RING + 2 * geo[at + VERTICES]

const RAD = Math.PI / 180
const EMPTY = new Float64Array(0)
const MAX_RING = 4096
const xs = new Float64Array(MAX_RING)
const ys = new Float64Array(MAX_RING)

function shapeOf(f: Fence, geometry: string | null): Float64Array {
  const coords = geometry === null ? [] : (JSON.parse(geometry) as {coordinates: number[][][]}).coordinates[0]
  const {lng, lat} = f
  const geo = new Float64Array(RING + 2 * coords.length)
  geo[LNG] = lng
  geo[LAT] = lat
  geo[COS] = Math.cos(lat * RAD)
  geo[OUTER] = f.radius
  geo[MIN_LNG] = f.minLng
  geo[MIN_LAT] = f.minLat
  geo[MAX_LNG] = f.maxLng
  geo[MAX_LAT] = f.maxLat
  geo[VERTICES] = coords.length
  coords.forEach(([x, y], i) => {
    geo[RING + 2 * i] = localX(x, lng, 1)
    geo[RING + 2 * i + 1] = localY(y, lat)
  })
  if (coords.length) {
    const n = Math.min(coords.length, MAX_RING)
    for (let i = 0; i < n; i++) {
      xs[i] = geo[RING + 2 * i] * geo[COS]
      ys[i] = geo[RING + 2 * i + 1]
    }
    const {inner, outer} = ringRadii(xs, ys, n)
    geo[OUTER] = outer
    geo[INNER] = inner
  }
  return geo
}

/**
 * What the engine reads of a geofence row, as an array: statements read rows `raw`, since a row
 * object of this many columns is made in dictionary mode by V8 (reading 100k rows as objects took
 * 1.5 s, as arrays 0.4 s). A circle's 64-point ring is not read: circles are evaluated from centre
 * and radius (with it, reading 100k rows took ~4 s of the 5 s start-up).
 */
const FENCE_COLUMNS = `id, live, tag, external_id, description, type, center_lng, center_lat, radius, metadata, user_id, user_ids,
  ip, stop_detection, operating_hours, disable_after, dwell_threshold, trip_approaching_threshold, min_lng, min_lat, max_lng, max_lat,
  CASE WHEN type = 'circle' THEN NULL ELSE geometry END`
type FenceValues = [id: string, live: number, tag: string | null, externalId: string | null, description: string, type: string,
  centerLng: number, centerLat: number, radius: number, metadata: string | null, userId: string | null, userIds: string | null,
  ip: string | null, stopDetection: number | null, operatingHours: string | null, disableAfter: string | null,
  dwellThreshold: number | null, tripApproachingThreshold: number | null, minLng: number, minLat: number, maxLng: number,
  maxLat: number, geometry: string | null]

function userIdsOf(userId: string | null, userIds: string | null): Set<string> | null {
  if (userId === null && userIds === null) return null
  const ids = [userId, ...(userIds ?? '').split(',')].map((s) => s?.trim()).filter((s): s is string => !!s)
  return ids.length ? new Set(ids) : null
}

function fenceOf(v: FenceValues): Fence {
  const [id, live, tag, externalId, description, type, lng, lat, radius, metadata, userId, userIdList, ip, stopDetection,
    operatingHours, disableAfter, dwellThreshold, tripApproachingThreshold, minLng, minLat, maxLng, maxLat, geometry] = v
  const userIds = userIdsOf(userId, userIdList)
  const summary: Record<string, unknown> = {_id: id}
  if (tag !== null) summary.tag = tag
  if (externalId !== null) summary.externalId = externalId
  summary.description = description
  summary.type = type
  summary.geometryCenter = {type: 'Point', coordinates: [lng, lat]}
  summary.geometryRadius = radius
  summary.metadata = metadata === null ? {} : JSON.parse(metadata)
  // what a track reads of each candidate and each geofence a user is inside comes first: V8 lays
  // the fields out in this order, so they share one or two cache lines of the ~130-byte object
  const fence: Fence = {
    geo: EMPTY,
    at: 0,
    limited: userIds !== null || !!ip || !!disableAfter,
    stopDetection: stopDetection === null ? null : stopDetection === 1,
    dwellThreshold,
    sortKey: `${tag ?? ''}\u0000${externalId ?? ''}\u0000${id}`,
    summaryJson: undefined,
    part: undefined,
    id,
    hours: operatingHours ? JSON.parse(operatingHours) : null,
    slot: -1,
    live: live === 1,
    tag,
    externalId,
    type,
    circle: type === 'circle',
    lng,
    lat,
    radius,
    minLng,
    minLat,
    maxLng,
    maxLat,
    userIds,
    ips: ip ? blockListOf(ip) : null,
    disableAfter: disableAfter ? Date.parse(disableAfter) : Infinity,
    tripApproachingThreshold,
    summary,
  }
  fence.geo = shapeOf(fence, geometry)
  return fence
}

/** The order of geofences in answers and events: tag, externalId, `_id`. */
export const bySortKey = (a: Fence, b: Fence) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0)

/** The geofence's `summary` as JSON text, serialised once per geofence. */
export const summaryText = (fence: Fence): string => (fence.summaryJson ??= JSON.stringify(fence.summary))

/** The summary as events store it once for all the users that embed it (events/parts.ts). */
export const summaryPart = (fence: Fence): EventPart => (fence.part ??= partOf(summaryText(fence)))

/** The cosine of the last latitude asked about: the candidates of one fix share it. */
let cosLat = NaN, cosOfLat = 1
const cosOf = (lat: number) => (lat === cosLat ? cosOfLat : (cosOfLat = Math.cos((cosLat = lat) * RAD)))

/**
 * The fence's ring in local metres around lng/lat (`cos` its latitude's cosine) into `xs`/`ys`;
 * returns the vertex count.
 */
function ringAround(geo: Float64Array, at: number, lng: number, lat: number, cos: number): number {
  const n = Math.min(geo[at + VERTICES], MAX_RING)
  const ox = localX(geo[at + LNG], lng, cos), oy = localY(geo[at + LAT], lat)
  for (let i = 0, k = at + RING; i < n; i++, k += 2) {
    xs[i] = geo[k] * cos + ox
    ys[i] = geo[k + 1] + oy
  }
  return n
}

/**
 * Share of the accuracy disc (radius `r` metres around lng/lat) inside the fence grown by `grow`
 * metres: exact lens area for circles, a fixed sample pattern for polygons (confidence.ts).
 */
export function shareInside(fence: Fence, lng: number, lat: number, r: number, grow = 0): number {
  const geo = fence.geo, at = fence.at
  const cos = cosOf(lat)
  const dx = localX(geo[at + LNG], lng, cos), dy = localY(geo[at + LAT], lat)
  const d = Math.sqrt(dx * dx + dy * dy)
  if (geo[at + VERTICES] === 0) {
    // the flat distance is within 1 % of the great-circle one at geofence scale: only discs near
    // the boundary pay for haversine and the lens
    const R = geo[at + OUTER] + grow
    const slack = 0.01 * d + 1
    if (d - slack >= r + R) return 0
    if (d + slack <= R - r) return 1
    return circleShare(haversine(lng, lat, geo[at + LNG], geo[at + LAT]), r, R)
  }
  // a disc (or point) that misses the bbox grown by `grow` misses the polygon: a quarter of the
  // candidates of a box search are such corners
  const minLng = geo[at + MIN_LNG], maxLng = geo[at + MAX_LNG], minLat = geo[at + MIN_LAT], maxLat = geo[at + MAX_LAT]
  const bx = localX(lng < minLng ? minLng : lng > maxLng ? maxLng : lng, lng, cos)
  const by = localY(lat < minLat ? minLat : lat > maxLat ? maxLat : lat, lat)
  const reach = r + grow
  if (bx * bx + by * by > reach * reach) return 0
  // a disc within the largest centred disc inside the ring is inside; one beyond the smallest
  // holding it is out. The fix's frame stretches the centre's east-west by cos / cos(centre), so
  // the radii shrink or grow by that much; the margin keeps these answers the ones ringShare gives
  const stretch = cos / geo[at + COS]
  const disc = r > 0 ? r : 0
  if (d + disc <= geo[at + INNER] * (stretch < 1 ? stretch : 1) * (1 - 1e-9) - 1e-6) return 1
  if (d - disc - grow >= geo[at + OUTER] * (stretch > 1 ? stretch : 1) * (1 + 1e-9) + 1e-6) return 0
  return ringShare(xs, ys, ringAround(geo, at, lng, lat, cos), r, grow)
}

/** Metres from lng/lat to the geofence: 0 inside it, else to its edge. */
export function distanceTo(fence: Fence, lng: number, lat: number): number {
  if (fence.circle) return Math.max(0, haversine(lng, lat, fence.lng, fence.lat) - fence.radius)
  const n = ringAround(fence.geo, fence.at, lng, lat, cosOf(lat))
  return insideRing(xs, ys, n, 0, 0) ? 0 : distanceToRing(xs, ys, n, 0, 0)
}

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
const SLICE = 500
const NODE_SIZE = 16

/**
 * One environment's enabled geofences in a static packed Hilbert R-tree (flatbush, searched here
 * without allocating: flat typed arrays, fences and their shapes in the tree's leaf order) plus a
 * small overlay of geofences changed since it was built, scanned linearly; the tree is rebuilt from
 * memory once a batch of changes leaves the overlay past OVERLAY_MAX.
 */
class EnvIndex {
  byId = new Map<string, Fence>()
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
    this.drop(this.byId.get(fence.id))
    this.byId.set(fence.id, fence)
    this.changed.add(fence.id)
    this.overlay.set(fence.id, fence)
  }

  remove(id: string): void {
    const fence = this.byId.get(id)
    if (!fence) return
    this.drop(fence)
    this.byId.delete(id)
    this.changed.add(id)
    this.overlay.delete(id)
  }

  private drop(fence: Fence | undefined): void {
    if (fence && fence.slot >= 0 && this.fences[fence.slot] === fence) this.dead[fence.slot] = 1
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

export interface GeofenceEngine {
  /** Enabled geofences of the environment whose bbox comes within `m` metres of lng/lat. */
  near(live: boolean, lng: number, lat: number, m: number): Fence[]
  get(live: boolean, id: string): Fence | undefined
  size(live: boolean): number
  /**
   * Changes whenever a Fence object may have been replaced (changes applied, a rebuild): Fences
   * held from one generation are the engine's own until the next.
   */
  generation(): number
  /** Resolves once no rebuild runs in the background. */
  settled(): Promise<void>
}

/**
 * The geofence engine of a store: every enabled geofence of both environments, kept in step with
 * the change feed (any process's writes), so a track never queries SQL for geofences.
 *
 * Only its first build blocks. Later rebuilds (past the feed's threshold of changes at once, a
 * bulk import) read the store, and tree rebuilds (past OVERLAY_MAX changes) copy the fences, a
 * slice per turn of the event loop while the current indexes answer; the geofences changed
 * meanwhile are read again before the new indexes take over. Until then a bulk change is not yet
 * seen by tracks, as during its import.
 */
export const geofenceEngine = followed((store: Store) => {
  let envs = [new EnvIndex(), new EnvIndex()]
  /** 0 until the first build, which alone blocks. */
  let generation = 0
  /** The geofences changed since the running background rebuild began (undefined when none runs). */
  let changedSince: Set<string> | undefined
  let running: Promise<void> | undefined
  let statements: {one: Statement; slice: Statement} | undefined
  const prepared = () => (statements ??= {
    one: store.sqlite.prepare(`SELECT ${FENCE_COLUMNS} FROM geofences WHERE id = ? AND enabled = 1`).raw(),
    slice: store.sqlite.prepare(`SELECT ${FENCE_COLUMNS}, rowid FROM geofences WHERE enabled = 1 AND rowid > ? ORDER BY rowid LIMIT ${SLICE}`).raw(),
  })

  const reread = (id: string) => {
    const row = prepared().one.get(id) as FenceValues | undefined
    for (const env of envs) env.remove(id)
    if (row) envs[row[1]].put(fenceOf(row))
  }

  function* fromStore(): Generator<void, EnvIndex[]> {
    const fences: Fence[][] = [[], []]
    for (let after = 0; ;) {
      const rows = prepared().slice.all(after) as Array<FenceValues & {23: number}>
      for (const row of rows) fences[row[1]].push(fenceOf(row))
      if (rows.length < SLICE) break
      after = rows[rows.length - 1][23]
      yield
    }
    return yield* indexed(fences)
  }

  function* fromMemory(): Generator<void, EnvIndex[]> {
    return yield* indexed(envs.map((env) => [...env.byId.values()]))
  }

  function* indexed(fences: Fence[][]): Generator<void, EnvIndex[]> {
    const next = [new EnvIndex(), new EnvIndex()]
    for (const live of [0, 1]) yield* next[live].loading(fences[live])
    return next
  }

  const takeOver = (next: EnvIndex[], changed: Iterable<string>) => {
    envs = next
    for (const id of changed) reread(id)
    generation++
  }

  const inBackground = (steps: Generator<void, EnvIndex[]>) => {
    const changed = (changedSince = new Set())
    running = (async () => {
      for (;;) {
        await new Promise(setImmediate)
        // superseded by a newer rebuild, or the store closed under it
        if (changedSince !== changed || !store.sqlite.open) return
        const step = steps.next()
        if (step.done) {
          changedSince = undefined
          return takeOver(step.value, changed)
        }
      }
    })().catch((error: Error) => {
      // the current index keeps answering; a rebuild from the table is tried again in a second
      if (changedSince === changed) changedSince = undefined
      process.emitWarning(`geofence index rebuild failed, retrying in 1 s: ${error.message}`)
      setTimeout(() => store.sqlite.open && !changedSince && inBackground(fromStore()), 1000).unref()
    })
  }

  const engine = {
    kinds: ['geofences'] as const,
    threshold: 5000,
    rebuild() {
      if (generation > 0) return inBackground(fromStore())
      const steps = fromStore()
      let step = steps.next()
      while (!step.done) step = steps.next()
      takeOver(step.value, [])
    },
    apply(changes: readonly Change[]) {
      for (const change of changes) {
        reread(change.ref)
        changedSince?.add(change.ref)
      }
      if (!changedSince && envs.some((env) => env.worn)) inBackground(fromMemory())
      generation++
    },
    near: (live: boolean, lng: number, lat: number, m: number) => envs[live ? 1 : 0].search(lng, lat, m),
    get: (live: boolean, id: string) => envs[live ? 1 : 0].byId.get(id),
    size: (live: boolean) => envs[live ? 1 : 0].size,
    generation: () => generation,
    async settled() {
      while (running) {
        const now = running
        await now
        if (running === now) running = undefined
      }
    },
  }
  return engine
}) as (store: Store) => GeofenceEngine
