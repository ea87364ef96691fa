import {z} from 'zod'
import {halfMissing} from '../trips/destination.js'
import {bool, datetime, int, latLng, metadata, num, range} from '../validate.js'

const text = (max: number) => z.string().max(max, {message: `string up to ${max} characters`})
const ID_MAX = 256
/** Identifiers take a number as its decimal string (docs/api/tracking.md). */
const idText = (v: unknown) => (typeof v === 'number' ? String(v) : v)
const id = z.preprocess(idText, z.string().min(1, {message: 'non-empty string'}).max(ID_MAX, {message: `string up to ${ID_MAX} characters`}))

/**
 * The device a track body is stored under, read without zod before the body is validated (the
 * rate limit counts per device); undefined when the body will be refused for its `deviceId`.
 */
export function trackDeviceOf(body: unknown): string | undefined {
  if (body === null || typeof body !== 'object' || Array.isArray(body)) return undefined
  const device = idText((body as {deviceId?: unknown}).deviceId)
  return typeof device === 'string' && device.length > 0 && device.length <= ID_MAX ? device : undefined
}

/** A beacon the device ranges now (DECISIONS: by `_id`, or by its iBeacon or Eddystone identity). */
const rangedBeacon = z.object({
  _id: z.string().max(64).optional(),
  type: z.enum(['ibeacon', 'eddystone']).optional(),
  uuid: z.string().max(64).optional(),
  major: z.union([z.string(), z.number()]).transform(String).optional(),
  minor: z.union([z.string(), z.number()]).transform(String).optional(),
  uid: z.string().max(64).optional(),
  instance: z.string().max(64).optional(),
}).refine((b) => b._id !== undefined || b.uuid !== undefined || b.uid !== undefined, {
  message: 'each beacon needs _id, or type with uuid, major and minor, or type with uid and instance',
})

/** The web SDK's `tripOptions`: names the trip this update belongs to and starts it (DECISIONS). */
const tripOptions = z.object({
  externalId: id,
  destinationGeofenceTag: id.nullish(),
  destinationGeofenceExternalId: id.nullish(),
  mode: z.enum(['foot', 'bike', 'car']).nullish(),
  approachingThreshold: num().pipe(z.number().positive({message: 'number greater than 0'})).nullish(),
  scheduledArrivalAt: datetime().nullish(),
  metadata: metadata(32).nullish(),
  version: z.unknown().optional(),
}).superRefine((o, ctx) => {
  // as POST /v1/trips refuses it; whether a geofence has the pair is read in the write
  const missing = halfMissing(o.destinationGeofenceTag ?? null, o.destinationGeofenceExternalId ?? null)
  if (missing) ctx.addIssue({code: 'custom', path: [missing.field], message: missing.statement})
})

/** The largest `accuracy`, metres: half the Earth's circumference, beyond which a disc around the fix covers the whole Earth. */
export const ACCURACY_MAX_M = 20_000_000

/**
 * The earliest `updatedAt` a track keeps (docs/api/tracking.md): earlier ones come from a clock
 * never set (year 1 is Go's and .NET's zero time; the Unix epoch is where a device without a
 * battery-backed clock starts) and are taken as server time, as one from the future is.
 */
export const EARLIEST_UPDATE = '2000-01-01T00:00:00.000Z'

/** `POST /v1/track`: the spec's fields and bounds, plus what the web SDK sends (DECISIONS, compat). */
export const trackSchema = z.object({
  deviceId: id,
  userId: id.nullish(),
  latitude: range(-90, 90),
  longitude: range(-180, 180),
  accuracy: num().pipe(z.number().positive({message: 'number greater than 0 (meters)'})
    .max(ACCURACY_MAX_M, {message: `number at most ${ACCURACY_MAX_M} (meters: half the way round the Earth)`})).nullish(),
  foreground: bool().nullish(),
  stopped: bool().nullish(),
  description: text(1024).nullish(),
  metadata: metadata(32).nullish(),
  deviceType: z.preprocess((v) => (typeof v === 'string' ? ({ios: 'iOS', android: 'Android', web: 'Web'} as Record<string, string>)[v.toLowerCase()] ?? v : v),
    z.enum(['iOS', 'Android', 'Web'], {message: 'one of iOS, Android, Web'})).nullish(),
  updatedAt: datetime().nullish(),
  replayed: bool().nullish(),
  deviceOS: text(256).nullish(),
  deviceMake: text(256).nullish(),
  deviceModel: text(256).nullish(),
  altitude: num().nullish(),
  verticalAccuracy: num().pipe(z.number().min(0, {message: 'number at least 0 (meters)'})).nullish(),
  locationAuthorization: text(64).nullish(),
  installId: text(256).nullish(),
  sessionId: text(256).nullish(),
  sdkVersion: text(64).nullish(),
  desiredAccuracy: text(64).nullish(),
  tripOptions: tripOptions.nullish(),
  beacons: z.array(rangedBeacon).max(100, {message: 'up to 100 beacons'}).nullish(),
  mocked: bool().nullish(),
  compromised: bool().nullish(),
  sharing: bool().nullish(),
})

export type TrackInput = z.output<typeof trackSchema>

/** `GET /v1/context`. */
export const contextQuery = z.object({coordinates: latLng()})

/** `GET /v1/search/beacons`. */
export const beaconSearchQuery = z.object({
  near: latLng(),
  limit: int(1, 1000).default(100),
})
