import type {ApiRequest} from '../request.js'
import {z} from 'zod'
import {beaconJson} from '../../beacons/json.js'
import {type BeaconRef, createBeacon, deleteBeacon, findBeacon, listBeacons, updateBeacon, upsertBeaconByTag} from '../../beacons/store.js'
import {errors} from '../errors.js'
import {pageBody, pageSchema} from '../paging.js'
import type {Api} from '../router.js'
import {bool, metadata, parse} from '../validate.js'

const jsonText = (value: unknown) => {
  if (typeof value !== 'string') return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}
const numeric = (value: unknown) => (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value)

/** `[longitude, latitude]` as an array or a JSON string (the beacon CSV form). */
const position = z.preprocess(
  (value) => {
    const parsed = jsonText(value)
    return Array.isArray(parsed) ? parsed.map(numeric) : parsed
  },
  z.tuple([z.number(), z.number()], {error: 'must be [longitude, latitude]'})
    .refine(([lng, lat]) => lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90, {
      message: 'must be [longitude, latitude] with longitude -180 to 180 and latitude -90 to 90',
    }),
)

/** Identifiers are strings; SDKs send major/minor as numbers too. */
const identifier = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1))

const fields = {
  description: z.string(),
  tag: z.string().min(1),
  externalId: z.string().min(1),
  type: z.enum(['ibeacon', 'eddystone']),
  uuid: identifier.optional(),
  major: identifier.optional(),
  minor: identifier.optional(),
  uid: identifier.optional(),
  instance: identifier.optional(),
  coordinates: position,
  enabled: bool().default(true),
  metadata: metadata(16).nullish(),
}

const REQUIRED_IDS = {ibeacon: ['uuid', 'major', 'minor'], eddystone: ['uid', 'instance']} as const

function withTypeIds<T extends z.ZodObject>(schema: T) {
  return schema.superRefine((input: any, ctx) => {
    for (const key of REQUIRED_IDS[input.type as keyof typeof REQUIRED_IDS]) {
      if (input[key] === undefined) ctx.addIssue({code: 'custom', path: [key], message: `required for type ${input.type}`})
    }
  })
}

const createBody = withTypeIds(z.object(fields))
const putByIdBody = withTypeIds(z.object({...fields, tag: fields.tag.nullish(), externalId: fields.externalId.nullish()}))
const putByTagBody = withTypeIds(z.object(fields).omit({tag: true, externalId: true}))

const listQuery = pageSchema(1000, 100).pick({limit: true, createdBefore: true, createdAfter: true}).extend({
  tag: z.string().optional(),
  externalId: z.string().optional(),
})

const refOf = (req: ApiRequest): BeaconRef =>
  req.params.externalId === undefined ? {id: String(req.params.id)} : {tag: String(req.params.tag), externalId: String(req.params.externalId)}

const conflict = () => errors.conflict('externalId', 'must be unique within tag; a beacon with this tag and externalId exists')

/** `/v1/beacons`: create, create-or-update, read, list and delete, by `_id` or by `tag` + `externalId`. */
export function beaconsRoutes(api: Api): void {
  const {store} = api.ctx
  const opts = {auth: 'S', limit: 'data'} as const
  const one = (row: Parameters<typeof beaconJson>[0]) => ({meta: {code: 200}, beacon: beaconJson(row)})

  api.route('get', '/beacons', opts, async (req) => {
    const {tag, externalId, ...page} = parse(listQuery, req.query)
    const result = await listBeacons(store, req.auth.live, {tag, externalId}, page)
    return pageBody('beacons', result.rows.map(beaconJson), result.hasMore)
  })

  api.route('post', '/beacons', opts, async (req) => {
    const result = await createBeacon(store, req.auth.live, parse(createBody, req.body ?? {}))
    if ('conflict' in result) throw conflict()
    return one(result.row)
  })

  api.route('put', '/beacons/:id', opts, async (req) => {
    const result = await updateBeacon(store, req.auth.live, String(req.params.id), parse(putByIdBody, req.body ?? {}))
    if (!result) throw errors.notFound('beacon')
    if ('conflict' in result) throw conflict()
    return one(result.row)
  })

  api.route('put', '/beacons/:tag/:externalId', opts, async (req) => {
    const {tag, externalId} = req.params as {tag: string; externalId: string}
    const input = {...parse(putByTagBody, req.body ?? {}), tag, externalId}
    return one((await upsertBeaconByTag(store, req.auth.live, tag, externalId, input)).row)
  })

  for (const path of ['/beacons/:id', '/beacons/:tag/:externalId']) {
    api.route('get', path, opts, async (req) => {
      const row = await findBeacon(store, req.auth.live, refOf(req))
      if (!row) throw errors.notFound('beacon')
      return one(row)
    })
    api.route('delete', path, opts, async (req) => {
      if (!(await deleteBeacon(store, req.auth.live, refOf(req)))) throw errors.notFound('beacon')
      return {meta: {code: 200}}
    })
  }
}
