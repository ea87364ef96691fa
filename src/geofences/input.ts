import {z} from 'zod'
import {refuse} from '../errors.js'
import {pageSchema} from '../paging-input.js'
import {bool, datetime, jsonText, metadata, num, numeric, text, TEXT_MAX} from '../validate.js'
import {haversine} from './confidence.js'
import {footprintCentroid, footprintRing} from './footprint.js'
import {circleShape, type IsochroneSource, isochroneShape, isPosition, type MapGeometry, type MapPlace, noIsochrones, noMapGeometry, polygonShape, ringProblem, type Position, type Shape, shapeProblem} from './geometry.js'
import {isIpRule, splitList} from './ip.js'
import {normaliseHours, type OperatingHours} from './operating-hours.js'

export const GEOFENCE_TYPES = ['circle', 'polygon', 'isochrone'] as const
export const ISOCHRONE_MODES = ['car', 'bike', 'foot'] as const
export const METADATA_MAX_KEYS = 16
export const CIRCLE_RADIUS = {min: 10, max: 10_000}
export const ISOCHRONE_MINUTES = {min: 1, max: 60}
/** How far from `coordinates` a geocoded `address` given with them may lie ("nearby" in the spec). */
export const ADDRESS_NEAR_M = 1000

/** A validated geofence, geometry computed: what create and update store. */
export interface GeofenceInput {
  description: string
  type: (typeof GEOFENCE_TYPES)[number]
  tag?: string
  externalId?: string
  shape: Shape
  mode?: string
  metadata?: Record<string, string | number | boolean>
  userId?: string
  /** Comma-separated, as the spec returns it. */
  userIds?: string
  ip?: string
  enabled: boolean
  disableAfter?: string
  deleteAfter?: string
  stopDetection?: boolean
  tripApproachingThreshold?: number
  dwellThreshold?: number
  operatingHours?: OperatingHours
}

/**
 * Numeric strings inside nested arrays (qs turns `coordinates[0]=7.4` into strings) become numbers,
 * down to the depth coordinates have (deeper input is refused as a ring or position anyway).
 */
function numbersDeep(value: unknown, depth = 0): unknown {
  if (Array.isArray(value)) return depth < 4 ? value.map((v) => numbersDeep(v, depth + 1)) : value
  return numeric(value)
}

const required = (issue: {input?: unknown}) => (issue.input === undefined ? 'required' : undefined)
const id = () => text(TEXT_MAX.id)
const positive = () => num().pipe(z.number().positive())
const stringList = () => z.union([z.string().max(TEXT_MAX.description), z.array(id()).max(1000)], {error: `must be a comma-separated string (up to ${TEXT_MAX.description} characters) or an array of strings`})

const fields = z.object({
  description: text(TEXT_MAX.description).refine((s) => s.trim() !== '', {message: 'must be a non-empty string'}),
  type: z.enum(GEOFENCE_TYPES, {error: required}),
  tag: id().optional(),
  externalId: id().optional(),
  coordinates: z.preprocess((v) => numbersDeep(jsonText(v)), z.unknown()).optional(),
  address: text(TEXT_MAX.description).optional(),
  placeId: id().optional(),
  radius: num().optional(),
  mode: z.enum(ISOCHRONE_MODES).optional(),
  metadata: metadata(METADATA_MAX_KEYS).optional(),
  userId: id().optional(),
  userIds: stringList().optional(),
  ip: stringList().optional(),
  enabled: bool().default(true),
  disableAfter: datetime().optional(),
  deleteAfter: datetime().optional(),
  stopDetection: bool().optional(),
  tripApproachingThreshold: positive().optional(),
  dwellThreshold: positive().optional(),
  operatingHours: z.preprocess(jsonText, z.unknown()).optional(),
})

type Fields = z.output<typeof fields>

/** `null` and `""` mean "not given" (form bodies and CSV cells send empty strings). */
function dropEmpty(value: unknown): unknown {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return value
  return Object.fromEntries(Object.entries(value).filter(([, v]) => v !== null && v !== ''))
}

/** What geometry needs of the running system: its routing engine and its imported map. */
export interface GeometrySources {
  isochrones: IsochroneSource
  mapGeometry: MapGeometry
}

/**
 * The body of a geofence upsert (PUT and POST, CSV rows), with isochrones and map geometry from
 * `sources`. Unknown keys are ignored. Issues carry the offending field as their path, so the API
 * can name it as `param`.
 */
export const geofenceInputSchemaFor = (sources: GeometrySources) => z.preprocess(dropEmpty, fields).transform((f, ctx): GeofenceInput => {
  const fail = (path: Array<string | number>, message: string) => {
    ctx.addIssue({code: 'custom', path, message})
    return null
  }
  const shape = shapeOf(f, fail, sources)
  if (!shape) return z.NEVER

  let operatingHours: OperatingHours | undefined
  if (f.operatingHours !== undefined) {
    const result = normaliseHours(f.operatingHours)
    if ('problem' in result) return fail(['operatingHours', ...result.problem.path], result.problem.statement) ?? z.NEVER
    operatingHours = result.hours
  }
  const ips = f.ip === undefined ? undefined : splitList(f.ip)
  if (ips && !ips.every(isIpRule)) {
    return fail(['ip'], 'must be comma-separated IP addresses, last-octet wildcards (10.0.0.*) or CIDR ranges (10.0.0.0/8)') ?? z.NEVER
  }
  const userIds = f.userIds === undefined ? undefined : splitList(f.userIds)

  return {
    description: f.description,
    type: f.type,
    tag: f.tag,
    externalId: f.externalId,
    shape,
    mode: f.type === 'isochrone' ? f.mode : undefined,
    metadata: f.metadata,
    userId: f.userId,
    userIds: userIds?.length ? userIds.join(',') : undefined,
    ip: ips?.length ? ips.join(',') : undefined,
    enabled: f.enabled,
    disableAfter: f.disableAfter,
    deleteAfter: f.deleteAfter,
    stopDetection: f.stopDetection,
    tripApproachingThreshold: f.tripApproachingThreshold,
    dwellThreshold: f.dwellThreshold,
    operatingHours,
  }
})

/** Without a road graph or a map: isochrones, `placeId` and `address` alone are refused, everything else is as with them. */
export const geofenceInputSchema = geofenceInputSchemaFor({isochrones: noIsochrones, mapGeometry: noMapGeometry})

/** Records an issue; null, for the caller to return. */
type Fail = (path: Array<string | number>, message: string) => null

/** The geometry from `coordinates` (or `placeId`, `address`), `radius` and `mode`. */
function shapeOf(f: Fields, fail: Fail, sources: GeometrySources): Shape | null {
  if (f.type === 'polygon') {
    const ring = f.placeId !== undefined ? placeRing(f.placeId, fail, sources.mapGeometry) : givenRing(f, fail)
    return ring && evaluable(polygonShape(ring), false, fail)
  }

  const center = centerOf(f, fail, sources.mapGeometry)
  if (!center) return null
  if (f.radius === undefined) return fail(['radius'], `required for ${f.type} geofences`)

  if (f.type === 'circle') {
    if (f.radius < CIRCLE_RADIUS.min || f.radius > CIRCLE_RADIUS.max) return fail(['radius'], `range ${CIRCLE_RADIUS.min} to ${CIRCLE_RADIUS.max} (meters)`)
    return evaluable(circleShape(center, f.radius), true, fail)
  }

  if (f.radius < ISOCHRONE_MINUTES.min || f.radius > ISOCHRONE_MINUTES.max) {
    return fail(['radius'], `range ${ISOCHRONE_MINUTES.min} to ${ISOCHRONE_MINUTES.max} (minutes) for isochrone geofences`)
  }
  if (f.mode === undefined) return fail(['mode'], `required for isochrone geofences: one of ${ISOCHRONE_MODES.join(', ')}`)
  const shape = isochroneShape(center, f.mode, f.radius, sources.isochrones)
  if (!shape) return fail(['coordinates'], `must be a point a road graph covers for isochrones (no road graph for ${f.mode} covers this point)`)
  return shape
}

function givenRing(f: Fields, fail: Fail): Position[] | null {
  if (f.coordinates === undefined) return fail(['coordinates'], 'required for polygon geofences: a closed ring of [longitude,latitude] positions')
  const ring = unwrapRing(f.coordinates)
  const problem = ringProblem(ring)
  return problem ? fail(['coordinates'], problem) : (ring as Position[])
}

/** The place of a `placeId`, or null with the issue recorded. */
function placeOf(placeId: string, fail: Fail, map: MapGeometry): MapPlace | null {
  if (!map.loaded()) return fail(['placeId'], 'must be the id of a known place (no places index is loaded; give coordinates instead)')
  return map.place(placeId) ?? fail(['placeId'], 'must be the id of a place of the imported map (its _id in /v1/search/places, such as n4449492349)')
}

/** A polygon's ring from a found place's footprint, which overrides `coordinates` (spec: the place's geometry overrides). */
function placeRing(placeId: string, fail: Fail, map: MapGeometry): Position[] | null {
  const place = placeOf(placeId, fail, map)
  if (!place) return null
  if (!place.footprint) return fail(['placeId'], `must be a place with a footprint (an area) for polygon geofences (${placeId} is a point in the imported map; make a circle geofence around it, or give the ring as coordinates without placeId)`)
  const from = footprintRing(place.footprint)
  if ('problem' in from) return fail(['placeId'], `must be a place whose footprint is one ring for polygon geofences (${placeId}'s footprint ${from.problem}; make a circle geofence around it, or give a ring as coordinates without placeId)`)
  return from.ring
}

/**
 * A circle's centre or an isochrone's destination (spec): a found place's centroid (its
 * footprint's, for an area) overrides `coordinates` and `address`; else `coordinates`, with an
 * `address` given beside them only checked to be near them; else the geocoded `address`.
 */
function centerOf(f: Fields, fail: Fail, map: MapGeometry): Position | null {
  if (f.placeId !== undefined) {
    const place = placeOf(f.placeId, fail, map)
    return place && ((place.footprint && footprintCentroid(place.footprint)) || place.location)
  }
  if (f.coordinates !== undefined) {
    if (!isPosition(f.coordinates)) return fail(['coordinates'], 'must be [longitude,latitude] with longitude -180 to 180 and latitude -90 to 90')
    // where the map has no such address (or does not reach the coordinates) there is nothing to check
    const at = f.address === undefined ? null : map.address(f.address, f.coordinates)
    const away = at ? haversine(at[0], at[1], f.coordinates[0], f.coordinates[1]) : 0
    if (away > ADDRESS_NEAR_M) return fail(['address'], `must be near coordinates (the geocoder puts it ${Math.round(away).toLocaleString('en-US')} m from them; at most ${ADDRESS_NEAR_M.toLocaleString('en-US')} m)`)
    return f.coordinates
  }
  if (f.address === undefined) return fail(['coordinates'], 'required (or address or placeId): [longitude,latitude]')
  if (!map.loaded()) return fail(['address'], 'must be an address the geocoder can resolve (no geocoder is loaded; give coordinates instead)')
  return map.address(f.address) ?? fail(['address'], 'must be an address the geocoder can resolve to a point of the imported map (no address there matches it)')
}

const evaluable = (shape: Shape, circle: boolean, fail: Fail): Shape | null => {
  const problem = shapeProblem(shape, circle)
  return problem ? fail(['coordinates'], problem) : shape
}

/** A ring, or GeoJSON polygon coordinates holding exactly one ring. */
function unwrapRing(value: unknown): unknown {
  if (Array.isArray(value) && value.length === 1 && Array.isArray(value[0]) && Array.isArray(value[0][0])) return value[0]
  return value
}

export const geofenceListQuery = pageSchema(1000, 100).extend({tag: z.string().optional(), externalId: z.string().optional()})

/** What a create or update that would repeat a `tag` + `externalId` pair is told. */
export const duplicateGeofence = () => refuse.conflict('externalId', 'must be unique within its tag (a geofence with this tag and externalId exists)')
