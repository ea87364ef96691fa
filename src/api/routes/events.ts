import {z} from 'zod'
import {logConversion} from '../../events/conversion.js'
import {eventJson} from '../../events/json.js'
import {deleteEvent, findEvent, listEvents, verifyEvent} from '../../events/store.js'
import {errors} from '../errors.js'
import {pageBody, pageSchema} from '../paging.js'
import type {Api} from '../router.js'
import {datetime, list, metadata, num, parse} from '../validate.js'

const conversionBody = z.object({
  name: z.string().regex(/^[A-Za-z0-9_]+$/, {message: 'only letters, digits and underscores'}),
  metadata: metadata(32).nullish(),
  revenue: num().optional(),
  userId: z.string().nullish(),
  deviceId: z.string().nullish(),
  installId: z.string().nullish(),
  createdAt: datetime().optional(),
  duration: num().pipe(z.number().min(0)).optional(),
})

const listQuery = pageSchema(1000, 100).pick({limit: true, createdBefore: true, createdAfter: true}).extend({
  types: list(z.string()).optional(),
  userId: z.string().optional(),
})

/** `accept`/`reject`, or the hosted product's 1/-1. */
const VERDICTS: Record<string, string> = {'1': 'accept', '-1': 'reject'}
const verificationBody = z.object({
  verification: z.preprocess((v) => VERDICTS[String(v)] ?? v, z.enum(['accept', 'reject'])),
  verifiedPlaceId: z.string().min(1).optional(),
}).refine((b) => b.verifiedPlaceId === undefined || b.verification === 'accept', {
  path: ['verifiedPlaceId'],
  message: 'only with verification accept',
})

/** `/v1/events`: conversions are logged here; every stored event is listed, read, deleted and verified. */
export function eventsRoutes(api: Api): void {
  const {store} = api.ctx
  const secret = {auth: 'S', limit: 'data'} as const
  const one = (row: Parameters<typeof eventJson>[0]) => ({meta: {code: 200}, event: eventJson(row)})

  api.route('post', '/events', {auth: 'P', limit: 'data'}, async (req) => {
    return one(await logConversion(store, req.auth.live, parse(conversionBody, req.body ?? {})))
  })

  api.route('get', '/events', secret, async (req) => {
    const {types, userId, ...page} = parse(listQuery, req.query)
    const result = await listEvents(store, req.auth.live, {types, userId}, page)
    return pageBody('events', result.rows.map(eventJson), result.hasMore)
  })

  api.route('get', '/events/:id', secret, async (req) => {
    const row = await findEvent(store, req.auth.live, String(req.params.id))
    if (!row) throw errors.notFound('event')
    return one(row)
  })

  api.route('delete', '/events/:id', secret, async (req) => {
    if (!(await deleteEvent(store, req.auth.live, String(req.params.id)))) throw errors.notFound('event')
    return {meta: {code: 200}}
  })

  api.route('put', '/events/:id/verification', secret, async (req) => {
    const input = parse(verificationBody, req.body ?? {})
    const row = await verifyEvent(store, req.auth.live, String(req.params.id), input.verification, input.verifiedPlaceId)
    if (!row) throw errors.notFound('event')
    return one(row)
  })
}
