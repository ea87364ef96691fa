import type {BlockList} from 'node:net'
import {type EventPart, partOf} from '../events/parts.js'
import {circleShare, distanceToRing, haversine, insideRing, localX, localY, ringRadii, ringShare} from './confidence.js'
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
  /**
   * epoch ms from which it admits no fix: `disableAfter` or `deleteAfter`, the earlier, judged by the
   * fix's time before the expiry job carries either out; Infinity when neither is set
   */
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
export const shapeLength = (geo: Float64Array, at: number) => RING + 2 * geo[at + VERTICES]

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
export const FENCE_COLUMNS = `id, live, tag, external_id, description, type, center_lng, center_lat, radius, metadata, user_id, user_ids,
  ip, stop_detection, operating_hours, min(coalesce(disable_after, delete_after), coalesce(delete_after, disable_after)), dwell_threshold, trip_approaching_threshold, min_lng, min_lat, max_lng, max_lat,
  CASE WHEN type = 'circle' THEN NULL ELSE geometry END`
export type FenceValues = [id: string, live: number, tag: string | null, externalId: string | null, description: string, type: string,
  centerLng: number, centerLat: number, radius: number, metadata: string | null, userId: string | null, userIds: string | null,
  ip: string | null, stopDetection: number | null, operatingHours: string | null, disableAfter: string | null,
  dwellThreshold: number | null, tripApproachingThreshold: number | null, minLng: number, minLat: number, maxLng: number,
  maxLat: number, geometry: string | null]

function userIdsOf(userId: string | null, userIds: string | null): Set<string> | null {
  if (userId === null && userIds === null) return null
  const ids = [userId, ...(userIds ?? '').split(',')].map((s) => s?.trim()).filter((s): s is string => !!s)
  return ids.length ? new Set(ids) : null
}

export function fenceOf(v: FenceValues): Fence {
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
/** Whether the geofence still admits fixes at `ms` (epoch): its `disableAfter` and `deleteAfter` not yet past. */
export const inForceAt = (fence: Fence, ms: number) => ms < fence.disableAfter

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
