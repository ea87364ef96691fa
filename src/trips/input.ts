import {z} from 'zod'
import {pageSchema} from '../paging-input.js'
import {bool, datetime, list, metadata, num, TEXT_MAX} from '../validate.js'
import {TRIP_STATUSES, UPDATE_STATUSES, type TripStatus} from './status.js'

/** Order ids arrive as numbers too. */
const idString = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1).max(TEXT_MAX.id))

const tripMetadata = metadata(32).superRefine((m, ctx) => {
  for (const [key, value] of Object.entries(m)) {
    if (typeof value === 'string' && value.length > 1024) ctx.addIssue({code: 'custom', path: [key], message: 'string values up to 1,024 characters'})
  }
})

const fields = {
  mode: z.enum(['foot', 'bike', 'car']).optional(),
  destinationGeofenceTag: idString.nullish(),
  destinationGeofenceExternalId: idString.nullish(),
  approachingThreshold: num().pipe(z.number().positive()).nullish(),
  scheduledArrivalAt: datetime().nullish(),
  metadata: tripMetadata.nullish(),
}

/** `POST /trips`. */
export const tripCreateSchema = z.object({externalId: idString, userId: idString.nullish(), ...fields})

/** `PATCH /trips/:id/update`. */
export const tripUpdateSchema = z.object({
  // Absent or null keeps the status (compat); `expired` is the expiry job's alone.
  status: z.enum(UPDATE_STATUSES).nullish().transform((s) => s ?? undefined),
  ...fields,
})

export const tripListQuery = pageSchema(1000, 500).extend({
  status: list(z.string()).refine((s) => s.every((v) => (TRIP_STATUSES as readonly string[]).includes(v)), {
    message: `comma-separated list of ${TRIP_STATUSES.join(', ')}`,
  }).transform((s) => s as TripStatus[]).optional(),
  destinationGeofenceTag: z.string().optional(),
  destinationGeofenceExternalId: z.string().optional(),
  externalId: list(z.string()).optional(),
  userId: z.string().optional(),
  includeLocations: bool().default(false),
  sortBy: z.enum(['createdAt', 'updatedAt']).default('updatedAt'),
  delayed: bool().optional(),
})

/** `GET /trips/:id/route`. */
export const tripRouteQuery = z.object({units: z.enum(['metric', 'imperial']).default('imperial')})

/** A refusal of src/trips/write.ts, in the shared catalogue's terms (until write.ts throws them itself). */
