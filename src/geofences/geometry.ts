import {centerOfMass, distance, polygon as turfPolygon} from '@turf/turf'

export type Position = [lng: number, lat: number]
export interface PolygonGeometry {
  type: 'Polygon'
  coordinates: Position[][]
}

/** What the geofences table stores for any shape: the polygon, its center, a radius, and its bbox. */
export interface Shape {
  geometry: PolygonGeometry
  center: Position
  /** Meters for circles and polygons, minutes for isochrones. */
  radius: number
  bbox: {minLng: number; minLat: number; maxLng: number; maxLat: number}
}

export const CIRCLE_STEPS = 64
export const RING_MIN = 4
export const RING_MAX = 2000

/** 6 decimals is ~11 cm: plenty for a geofence, and half the JSON of full doubles. */
export const round6 = (n: number) => Math.round(n * 1e6) / 1e6

export function isPosition(value: unknown): value is Position {
  return Array.isArray(value) && value.length === 2 && value.every((n) => typeof n === 'number' && Number.isFinite(n))
    && value[0] >= -180 && value[0] <= 180 && value[1] >= -90 && value[1] <= 90
}

/** Earth's mean radius in meters, as turf uses it: circles drawn here equal turf's `circle` to the last bit. */
const EARTH_RADIUS_M = 6371008.8
const toRadians = (degrees: number) => ((degrees % 360) * Math.PI) / 180
const toDegrees = (radians: number) => ((radians % (2 * Math.PI)) * 180) / Math.PI
/** sin and cos of each step's bearing (counter-clockwise from north, turf's order). */
const BEARING_SIN = new Float64Array(CIRCLE_STEPS)
const BEARING_COS = new Float64Array(CIRCLE_STEPS)
for (let i = 0; i < CIRCLE_STEPS; i++) {
  const bearing = toRadians((i * -360) / CIRCLE_STEPS)
  BEARING_SIN[i] = Math.sin(bearing)
  BEARING_COS[i] = Math.cos(bearing)
}

/**
 * A circle as a 64-sided polygon around `center`: each vertex the great-circle destination at
 * `radiusM` on one bearing (turf's `destination` formula, with the trigonometry of the center and
 * of the bearings done once instead of per vertex; bulk imports draw a circle per row).
 */
export function circleShape(center: Position, radiusM: number): Shape {
  const lng1 = toRadians(center[0])
  const lat1 = toRadians(center[1])
  const angle = radiusM / EARTH_RADIUS_M
  const sinLat1 = Math.sin(lat1), cosLat1 = Math.cos(lat1), sinAngle = Math.sin(angle), cosAngle = Math.cos(angle)
  const ring: Position[] = new Array(CIRCLE_STEPS + 1)
  for (let i = 0; i < CIRCLE_STEPS; i++) {
    const lat2 = Math.asin(sinLat1 * cosAngle + cosLat1 * sinAngle * BEARING_COS[i])
    const lng2 = lng1 + Math.atan2(BEARING_SIN[i] * sinAngle * cosLat1, cosAngle - sinLat1 * Math.sin(lat2))
    ring[i] = [round6(toDegrees(lng2)), round6(toDegrees(lat2))]
  }
  ring[CIRCLE_STEPS] = ring[0]
  return withBbox({geometry: {type: 'Polygon', coordinates: [ring]}, center, radius: radiusM})
}

/**
 * A polygon from a closed ring: the center is the area centroid, the radius the distance from it to
 * the farthest vertex, so a circle of that radius covers the whole polygon.
 */
export function polygonShape(ring: Position[]): Shape {
  const c = centerOfMass(turfPolygon([ring])).geometry.coordinates
  const center: Position = [round6(c[0]), round6(c[1])]
  let radius = 0
  for (const p of ring) radius = Math.max(radius, distance(center, p, {units: 'meters'}))
  return withBbox({geometry: {type: 'Polygon', coordinates: [ring]}, center, radius: Math.round(radius * 100) / 100})
}

/**
 * The ring of the area reachable from `center` in `minutes` by `mode`, or null where no road graph
 * covers the point. The running system hands its routing engine's (src/system.ts).
 */
export type IsochroneSource = (center: Position, mode: string, minutes: number) => Position[] | null

export const noIsochrones: IsochroneSource = () => null

/** A place of the imported map as geofences use it (src/places/index.ts `PlaceGeometry`). */
export interface MapPlace {
  location: Position
  /** GeoJSON polygon coordinates per separate part, `[outer, ...holes]`; null for a point place. */
  footprint: Position[][][] | null
}

/**
 * Geometry from the imported map for geofences given by `placeId` or `address`: a place by its id,
 * the geocoder's point for a text (searching only the regions that hold `near` when given). Null
 * when the map does not resolve it; `loaded` is false while no map is imported. The running system
 * hands its own (src/system.ts).
 */
export interface MapGeometry {
  loaded(): boolean
  place(id: string): MapPlace | null
  address(text: string, near?: Position): Position | null
}

export const noMapGeometry: MapGeometry = {loaded: () => false, place: () => null, address: () => null}

export function isochroneShape(center: Position, mode: string, minutes: number, source: IsochroneSource): Shape | null {
  const ring = source(center, mode, minutes)
  if (!ring) return null
  return withBbox({geometry: {type: 'Polygon', coordinates: [ring]}, center, radius: minutes})
}

/** Why a ring is not a valid polygon boundary, or null when it is. */
export function ringProblem(ring: unknown): string | null {
  const statement = `must be a closed ring of ${RING_MIN} to ${RING_MAX.toLocaleString('en-US')} [longitude,latitude] positions`
  if (!Array.isArray(ring) || ring.length < RING_MIN || ring.length > RING_MAX) return statement
  if (!ring.every(isPosition)) return `${statement}, longitude -180 to 180 and latitude -90 to 90`
  const first = ring[0]
  const last = ring[ring.length - 1]
  if (first[0] !== last[0] || first[1] !== last[1]) return `${statement} (the last position must equal the first)`
  return null
}

/**
 * Why the engine cannot evaluate a shape, or null: it measures around each geofence in a flat frame
 * of longitude and latitude, so a shape must not cross the antimeridian (GeoJSON, RFC 7946, cuts
 * such shapes there) nor reach a pole. A ring is read as drawn, so one wider than 180° is refused.
 */
export function shapeProblem(shape: Shape, circle: boolean): string | null {
  const {minLng, maxLng} = shape.bbox
  if (circle && ((90 - Math.abs(shape.center[1])) * Math.PI * EARTH_RADIUS_M) / 180 <= shape.radius) return 'must not reach a pole'
  if (minLng < -180 || maxLng > 180) return 'must not cross the antimeridian (longitude ±180)'
  if (maxLng - minLng > 180) return 'must span at most 180° of longitude (a shape crossing the antimeridian is cut there, RFC 7946)'
  return null
}

function withBbox(shape: Omit<Shape, 'bbox'>): Shape {
  let minLng = Infinity, minLat = Infinity, maxLng = -Infinity, maxLat = -Infinity
  for (const [lng, lat] of shape.geometry.coordinates[0]) {
    if (lng < minLng) minLng = lng
    if (lng > maxLng) maxLng = lng
    if (lat < minLat) minLat = lat
    if (lat > maxLat) maxLat = lat
  }
  return {...shape, bbox: {minLng, minLat, maxLng, maxLat}}
}

