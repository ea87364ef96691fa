import {refuse} from '../../errors.js'
import {tripCreateSchema, tripListQuery, tripRouteQuery, tripUpdateSchema} from '../../trips/input.js'
import type {TripRow} from '../../trips/json.js'
import {findTrip, listTrips, tripLocations, tripsJson} from '../../trips/read.js'
import {travelledRoute} from '../../trips/route.js'
import {createTrip, deleteTrip, updateTrip} from '../../trips/write.js'
import {parse} from '../../validate.js'
import {pageStream} from '../paging.js'
import type {Api} from '../router.js'

/** `/v1/trips`: create, update (status and fields), list with the spec's filters, read, travelled route, delete. */
export function tripsRoutes(api: Api): void {
  const {store} = api.ctx
  const secret = {auth: 'S', limit: 'data'} as const
  const publishable = {auth: 'P', limit: 'data'} as const

  const one = async (row: TripRow | undefined) => {
    if (!row) throw refuse.notFound('trip')
    const [trip] = await tripsJson(store, [row], {locations: true})
    return {meta: {code: 200}, trip}
  }

  api.route('post', '/trips', publishable, async (req) => {
    return one(await createTrip(store, req.auth.live, parse(tripCreateSchema, req.body)))
  })

  api.route('patch', '/trips/:id/update', publishable, async (req) => {
    const input = parse(tripUpdateSchema, req.body)
    return one(await updateTrip(store, req.auth.live, String(req.params.id), input))
  })

  api.route('get', '/trips', secret, async (req) => {
    const {status, destinationGeofenceTag, destinationGeofenceExternalId, externalId, userId, includeLocations, sortBy, delayed, ...page} =
      parse(tripListQuery, req.query)
    const filters = {status, destinationGeofenceTag, destinationGeofenceExternalId, externalId, userId, delayed, sortBy}
    const trips = listTrips(store, req.auth.live, filters, page)
    return pageStream('trips', trips, async (rows) => (await tripsJson(store, rows, {locations: includeLocations})).map((trip) => JSON.stringify(trip)))
  })

  api.route('get', '/trips/:id', secret, async (req) => {
    return one(await findTrip(store, req.auth.live, String(req.params.id)))
  })

  api.route('get', '/trips/:id/route', secret, async (req) => {
    const {units} = parse(tripRouteQuery, req.query)
    const trip = await findTrip(store, req.auth.live, String(req.params.id))
    if (!trip) throw refuse.notFound('trip')
    const locations = (await tripLocations(store, [trip.id])).get(trip.id)!
    return {meta: {code: 200}, ...travelledRoute(locations, units)}
  })

  api.route('delete', '/trips/:id', secret, async (req) => {
    if (!(await deleteTrip(store, req.auth.live, String(req.params.id)))) throw refuse.notFound('trip')
    return {meta: {code: 200}}
  })
}
