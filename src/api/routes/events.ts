import {refuse} from '../../errors.js'
import {logConversion} from '../../events/conversion.js'
import {conversionSchema, eventListQuery, verificationSchema} from '../../events/input.js'
import {eventJson, eventJsonText} from '../../events/json.js'
import {deleteEvent, findEvent, listEvents, verifyEvent} from '../../events/store.js'
import {parse} from '../../validate.js'
import {pageStream} from '../paging.js'
import type {Api} from '../router.js'

/** `/v1/events`: conversions are logged here; every stored event is listed, read, deleted and verified. */
export function eventsRoutes(api: Api): void {
  const {store} = api.ctx
  const secret = {auth: 'S', limit: 'data'} as const
  const one = (row: Parameters<typeof eventJson>[0]) => ({meta: {code: 200}, event: eventJson(row)})

  api.route('post', '/events', {auth: 'P', limit: 'data'}, async (req) => {
    return one(await logConversion(store, req.auth.live, parse(conversionSchema, req.body)))
  })

  api.route('get', '/events', secret, async (req) => {
    const {types, userId, ...page} = parse(eventListQuery, req.query)
    return pageStream('events', listEvents(store, req.auth.live, {types, userId}, page), (rows) => rows.map(eventJsonText))
  })

  api.route('get', '/events/:id', secret, async (req) => {
    const row = await findEvent(store, req.auth.live, String(req.params.id))
    if (!row) throw refuse.notFound('event')
    return one(row)
  })

  api.route('delete', '/events/:id', secret, async (req) => {
    if (!(await deleteEvent(store, req.auth.live, String(req.params.id)))) throw refuse.notFound('event')
    return {meta: {code: 200}}
  })

  api.route('put', '/events/:id/verification', secret, async (req) => {
    const input = parse(verificationSchema, req.body)
    const row = await verifyEvent(store, req.auth.live, String(req.params.id), input.verification, input.verifiedPlaceId, api.ctx.map)
    if (!row) throw refuse.notFound('event')
    return one(row)
  })
}
