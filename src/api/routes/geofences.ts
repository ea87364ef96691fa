import type {Request} from 'express'
import {z} from 'zod'
import {geofenceInputSchema, type GeofenceInput} from '../../geofences/input.js'
import {geofenceJson, geofenceJsonText} from '../../geofences/json.js'
import {
  createGeofence, deleteGeofence, DuplicateGeofenceError, getGeofence, listGeofences,
  type GeofenceRef, updateGeofenceById, upsertGeofenceByKey, usersInGeofence,
} from '../../geofences/store.js'
import {userJson} from '../../users/json.js'
import {errors} from '../errors.js'
import {pageBody, pageSchema} from '../paging.js'
import type {Api} from '../router.js'
import {metadataFilters, parse} from '../validate.js'

const listQuery = pageSchema(1000, 100).extend({tag: z.string().optional(), externalId: z.string().optional()})

const param = (req: Request, name: string) => String(req.params[name])
const refOf = (req: Request): GeofenceRef =>
  'externalId' in req.params ? {tag: param(req, 'tag'), externalId: param(req, 'externalId')} : {id: param(req, 'id')}

const one = (row: Parameters<typeof geofenceJson>[0]) => ({meta: {code: 200}, geofence: geofenceJson(row)})

async function conflictAs409<T>(write: () => Promise<T>): Promise<T> {
  try {
    return await write()
  } catch (error) {
    if (error instanceof DuplicateGeofenceError) throw errors.conflict('externalId', 'must be unique within its tag (a geofence with this tag and externalId exists)')
    throw error
  }
}

/** `/v1/geofences`: create, upsert, read, list, delete, and the users inside one. */
export function geofencesRoutes(api: Api): void {
  const {db} = api.ctx.store
  const S = {auth: 'S', limit: 'data'} as const
  const input = (req: Request): GeofenceInput => parse(geofenceInputSchema, req.body ?? {})

  api.route('get', '/geofences', S, async (req, res) => {
    const {tag, externalId, ...page} = parse(listQuery, req.query)
    const filters = {tag, externalId, metadata: metadataFilters(req.query.metadata)}
    const {rows, hasMore} = await listGeofences(db, res.locals.auth.live, page, filters)
    // pageBody's shape, written as text so stored geometries are not parsed and re-serialised
    res.type('application/json').send(`{"meta":{"code":200,"hasMore":${hasMore}},"geofences":[${rows.map(geofenceJsonText).join(',')}]}`)
  })

  api.route('post', '/geofences', S, async (req, res) => {
    const body = input(req)
    return one(await conflictAs409(() => createGeofence(db, res.locals.auth.live, body)))
  })

  // Three segments before two, so `/:tag/:externalId/users` is never read as a geofence.
  api.route('get', '/geofences/:tag/:externalId/users', S, async (req, res) => {
    const {live} = res.locals.auth
    const page = parse(pageSchema(1000, 100), req.query)
    const geofence = await getGeofence(db, live, refOf(req))
    if (!geofence) throw errors.notFound('geofence')
    const {rows, hasMore} = await usersInGeofence(db, live, geofence.id, page)
    return pageBody('users', rows.map(userJson), hasMore)
  })

  api.route('put', '/geofences/:tag/:externalId', S, async (req, res) => {
    const body = input(req)
    return one(await upsertGeofenceByKey(db, res.locals.auth.live, param(req, 'tag'), param(req, 'externalId'), body))
  })

  api.route('put', '/geofences/:id', S, async (req, res) => {
    const row = await conflictAs409(() => updateGeofenceById(db, res.locals.auth.live, param(req, 'id'), input(req)))
    if (!row) throw errors.notFound('geofence')
    return one(row)
  })

  for (const path of ['/geofences/:tag/:externalId', '/geofences/:id']) {
    api.route('get', path, S, async (req, res) => {
      const row = await getGeofence(db, res.locals.auth.live, refOf(req))
      if (!row) throw errors.notFound('geofence')
      return one(row)
    })
    api.route('delete', path, S, async (req, res) => {
      if (!(await deleteGeofence(db, res.locals.auth.live, refOf(req)))) throw errors.notFound('geofence')
      return {meta: {code: 200}}
    })
  }
}
