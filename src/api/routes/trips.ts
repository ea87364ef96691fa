import {z} from 'zod'
import {tripLocations, findTrip, listTrips, tripsJson} from '../../trips/read.js'
import {travelledRoute} from '../../trips/route.js'
import {TRIP_STATUSES, UPDATE_STATUSES} from '../../trips/status.js'
import type {TripRow} from '../../trips/json.js'
import {createTrip, deleteTrip, updateTrip} from '../../trips/write.js'
import {errors} from '../errors.js'
import {pageBody, pageSchema} from '../paging.js'
import type {Api} from '../router.js'
import {bool, datetime, list, metadata, num, parse} from '../validate.js'

/** Order ids arrive as numbers too. */
const idString = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1))

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

const createBody = z.object({externalId: idString, userId: idString.nullish(), ...fields})

const updateBody = z.object({
  // Absent or null keeps the status (compat); `expired` is the expiry job's alone.
  status: z.enum(UPDATE_STATUSES).nullish().transform((s) => s ?? undefined),
  ...fields,
})

const listQuery = pageSchema(1000, 500).extend({
  status: list(z.string()).refine((s) => s.every((v) => (TRIP_STATUSES as readonly string[]).includes(v)), {
    message: `comma-separated list of ${TRIP_STATUSES.join(', ')}`,
  }).optional(),
  destinationGeofenceTag: z.string().optional(),
  destinationGeofenceExternalId: z.string().optional(),
  externalId: list(z.string()).optional(),
  userId: z.string().optional(),
  includeLocations: bool().default(false),
  sortBy: z.enum(['createdAt', 'updatedAt']).default('updatedAt'),
  delayed: bool().optional(),
})

const routeQuery = z.object({units: z.enum(['metric', 'imperial']).default('imperial')})

/** `/v1/trips`: create, update (status and fields), list with the spec's filters, read, travelled route, delete. */
export function tripsRoutes(api: Api): void {
  const {store} = api.ctx
  const secret = {auth: 'S', limit: 'data'} as const
  const publishable = {auth: 'P', limit: 'data'} as const

  const one = async (row: TripRow | undefined) => {
    if (!row) throw errors.notFound('trip')
    const [trip] = await tripsJson(store, [row], {locations: true})
    return {meta: {code: 200}, trip}
  }

  api.route('post', '/trips', publishable, async (req) => {
    return one(await createTrip(store, req.auth.live, parse(createBody, req.body ?? {})))
  })

  api.route('patch', '/trips/:id/update', publishable, async (req) => {
    const input = parse(updateBody, req.body ?? {})
    return one(await updateTrip(store, req.auth.live, String(req.params.id), input))
  })

  api.route('get', '/trips', secret, async (req) => {
    const {status, destinationGeofenceTag, destinationGeofenceExternalId, externalId, userId, includeLocations, sortBy, delayed, ...page} =
      parse(listQuery, req.query)
    const filters = {status: status as (typeof TRIP_STATUSES)[number][] | undefined, destinationGeofenceTag, destinationGeofenceExternalId, externalId, userId, delayed, sortBy}
    const result = await listTrips(store, req.auth.live, filters, page)
    return pageBody('trips', await tripsJson(store, result.rows, {locations: includeLocations}), result.hasMore)
  })

  api.route('get', '/trips/:id', secret, async (req) => {
    return one(await findTrip(store, req.auth.live, String(req.params.id)))
  })

  api.route('get', '/trips/:id/route', secret, async (req) => {
    const {units} = parse(routeQuery, req.query)
    const trip = await findTrip(store, req.auth.live, String(req.params.id))
    if (!trip) throw errors.notFound('trip')
    const locations = (await tripLocations(store, [trip.id])).get(trip.id)!
    return {meta: {code: 200}, ...travelledRoute(locations, units)}
  })

  api.route('delete', '/trips/:id', secret, async (req) => {
    if (!(await deleteTrip(store, req.auth.live, String(req.params.id)))) throw errors.notFound('trip')
    return {meta: {code: 200}}
  })
}
