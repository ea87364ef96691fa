import {BlockList} from 'node:net'
import Flatbush from 'flatbush'
import type {Statement} from 'better-sqlite3'
import {type Change, followed} from '../store/changes.js'
import type {Store} from '../store/db.js'
import {circleShare, degreesAround, haversine, localX, localY, ringShare} from './confidence.js'
import {blockListOf} from './ip.js'
import type {OperatingHours} from './operating-hours.js'
import type {GeofenceRow} from './store.js'

/** An enabled geofence as the engine holds it: what evaluation needs, parsed once. */
export interface Fence {
  id: string
  live: boolean
  tag: string | null
  externalId: string | null
  type: string
  /** Circles are evaluated exactly from centre and radius; polygons and isochrones from `ring`. */
  circle: boolean
  lng: number
  lat: number
  radius: number
  /**
   * The ring's vertices as metres from the centre (`lng`/`lat`), interleaved and closed, east
   * unscaled by the cosine of latitude (the fix's cosine scales it); null for circles.
   */
  ring: Float64Array | null
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
  /** Order of geofences in answers and events: tag, externalId, `_id`. */
  sortKey: string
}

export function fenceOf(row: GeofenceRow): Fence {
  const circle = row.type === 'circle'
  let ring: Float64Array | null = null
  if (!circle) {
    const coords = (JSON.parse(row.geometry) as {coordinates: number[][][]}).coordinates[0]
    ring = new Float64Array(coords.length * 2)
    coords.forEach(([lng, lat], i) => {
      ring![2 * i] = localX(lng, row.center_lng, 1)
      ring![2 * i + 1] = localY(lat, row.center_lat)
    })
  }
  const userIds = [row.user_id, ...(row.user_ids ?? '').split(',')].map((s) => s?.trim()).filter((s): s is string => !!s)
  const metadata = row.metadata === null ? {} : JSON.parse(row.metadata)
  return {
    id: row.id,
    live: row.live === 1,
    tag: row.tag,
    externalId: row.external_id,
    type: row.type,
    circle,
    lng: row.center_lng,
    lat: row.center_lat,
    radius: row.radius,
    ring,
    minLng: row.min_lng,
    minLat: row.min_lat,
    maxLng: row.max_lng,
    maxLat: row.max_lat,
    userIds: userIds.length ? new Set(userIds) : null,
    ips: row.ip ? blockListOf(row.ip) : null,
    stopDetection: row.stop_detection === null ? null : row.stop_detection === 1,
    hours: row.operating_hours ? JSON.parse(row.operating_hours) : null,
    disableAfter: row.disable_after ? Date.parse(row.disable_after) : Infinity,
    dwellThreshold: row.dwell_threshold,
    tripApproachingThreshold: row.trip_approaching_threshold,
    sortKey: `${row.tag ?? ''}\u0000${row.external_id ?? ''}\u0000${row.id}`,
    summary: {
      _id: row.id,
      ...(row.tag === null ? {} : {tag: row.tag}),
      ...(row.external_id === null ? {} : {externalId: row.external_id}),
      description: row.description,
      type: row.type,
      geometryCenter: {type: 'Point', coordinates: [row.center_lng, row.center_lat]},
      geometryRadius: row.radius,
      metadata,
    },
  }
}

/** The geofence's `summary` as JSON text, serialised once per geofence. */
export const summaryText = (fence: Fence): string => (fence.summaryJson ??= JSON.stringify(fence.summary))

/** What `fenceOf` reads of a row, the geometry aside. */
const FENCE_COLUMNS = ['id', 'live', 'tag', 'external_id', 'description', 'type', 'center_lng', 'center_lat', 'radius', 'metadata', 'user_id',
  'user_ids', 'ip', 'stop_detection', 'operating_hours', 'disable_after', 'dwell_threshold', 'trip_approaching_threshold',
  'min_lng', 'min_lat', 'max_lng', 'max_lat'].join(', ')

const RAD = Math.PI / 180
const MAX_RING = 4096
const xs = new Float64Array(MAX_RING)
const ys = new Float64Array(MAX_RING)

/**
 * Share of the accuracy disc (radius `r` metres around lng/lat) inside the fence grown by `grow`
 * metres: exact lens area for circles, a fixed sample pattern for polygons (confidence.ts).
 */
export function shareInside(fence: Fence, lng: number, lat: number, r: number, grow = 0): number {
  const cos = Math.cos(lat * RAD)
  if (fence.circle) {
    // the flat distance is within 1 % of the great-circle one at geofence scale: only discs near
    // the boundary pay for haversine and the lens
    const R = fence.radius + grow
    const dx = localX(fence.lng, lng, cos), dy = localY(fence.lat, lat)
    const flat = Math.sqrt(dx * dx + dy * dy)
    const slack = 0.01 * flat + 1
    if (flat - slack >= r + R) return 0
    if (flat + slack <= R - r) return 1
    return circleShare(haversine(lng, lat, fence.lng, fence.lat), r, R)
  }
  // a disc (or point) that misses the bbox grown by `grow` misses the polygon: a quarter of the
  // candidates of a box search are such corners
  const bx = localX(lng < fence.minLng ? fence.minLng : lng > fence.maxLng ? fence.maxLng : lng, lng, cos)
  const by = localY(lat < fence.minLat ? fence.minLat : lat > fence.maxLat ? fence.maxLat : lat, lat)
  const reach = r + grow
  if (bx * bx + by * by > reach * reach) return 0
  const ring = fence.ring!
  const n = Math.min(ring.length / 2, MAX_RING)
  const ox = localX(fence.lng, lng, cos), oy = localY(fence.lat, lat)
  for (let i = 0; i < n; i++) {
    xs[i] = ring[2 * i] * cos + ox
    ys[i] = ring[2 * i + 1] + oy
  }
  return ringShare(xs, ys, n, r, grow)
}

/** Past this many changed geofences since the last build, the tree is rebuilt on the next search. */
const OVERLAY_MAX = 256

/**
 * One environment's enabled geofences in a static packed R-tree (flatbush: flat typed arrays) plus
 * a small overlay of geofences changed since it was built, scanned linearly; the tree is rebuilt
 * from memory once the overlay passes OVERLAY_MAX.
 */
class EnvIndex {
  byId = new Map<string, Fence>()
  private fences: Fence[] = []
  private tree: Flatbush | null = null
  private masked = new Set<string>()
  private overlay = new Map<string, Fence>()

  load(fences: Iterable<Fence>): void {
    this.byId = new Map()
    for (const f of fences) this.byId.set(f.id, f)
    this.build()
  }

  private build(): void {
    this.fences = [...this.byId.values()]
    this.masked.clear()
    this.overlay.clear()
    if (this.fences.length === 0) {
      this.tree = null
      return
    }
    const tree = new Flatbush(this.fences.length)
    for (const f of this.fences) tree.add(f.minLng, f.minLat, f.maxLng, f.maxLat)
    tree.finish()
    this.tree = tree
  }

  put(fence: Fence): void {
    this.byId.set(fence.id, fence)
    this.masked.add(fence.id)
    this.overlay.set(fence.id, fence)
  }

  remove(id: string): void {
    if (!this.byId.delete(id)) return
    this.masked.add(id)
    this.overlay.delete(id)
  }

  /** Fences whose bbox meets the box around lng/lat of `m` metres. */
  search(lng: number, lat: number, m: number): Fence[] {
    if (this.masked.size > OVERLAY_MAX) this.build()
    const [dLng, dLat] = degreesAround(m, lat)
    const minX = lng - dLng, minY = lat - dLat, maxX = lng + dLng, maxY = lat + dLat
    const out: Fence[] = []
    if (this.tree) {
      const masked = this.masked.size > 0
      for (const i of this.tree.search(minX, minY, maxX, maxY)) {
        const f = this.fences[i]
        if (!masked || !this.masked.has(f.id)) out.push(f)
      }
    }
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
}

/**
 * The geofence engine of a store: every enabled geofence of both environments, kept in step with
 * the change feed (any process's writes), so a track never queries SQL for geofences.
 */
export const geofenceEngine = followed((store: Store) => {
  const envs = [new EnvIndex(), new EnvIndex()]
  let one: Statement | undefined
  const byId = () => (one ??= store.sqlite.prepare('SELECT * FROM geofences WHERE id = ?'))
  const engine = {
    kinds: ['geofences'] as const,
    threshold: 5000,
    rebuild() {
      // circles are evaluated from centre and radius: their 64-point ring is not read (with it,
      // reading 100k rows took ~4 s of the 5 s start-up)
      const rows = store.sqlite.prepare(`SELECT ${FENCE_COLUMNS}, CASE WHEN type = 'circle' THEN NULL ELSE geometry END AS geometry
        FROM geofences WHERE enabled = 1`).all() as GeofenceRow[]
      const fences = rows.map(fenceOf)
      envs[0].load(fences.filter((f) => !f.live))
      envs[1].load(fences.filter((f) => f.live))
    },
    apply(changes: readonly Change[]) {
      for (const change of changes) {
        const row = change.deleted ? undefined : (byId().get(change.ref) as GeofenceRow | undefined)
        for (const env of envs) env.remove(change.ref)
        if (row && row.enabled === 1) envs[row.live].put(fenceOf(row))
      }
    },
    near: (live: boolean, lng: number, lat: number, m: number) => envs[live ? 1 : 0].search(lng, lat, m),
    get: (live: boolean, id: string) => envs[live ? 1 : 0].byId.get(id),
    size: (live: boolean) => envs[live ? 1 : 0].size,
  }
  return engine
}) as (store: Store) => GeofenceEngine
