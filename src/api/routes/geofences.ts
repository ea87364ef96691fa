import {refuse} from '../../errors.js'
import {type GeofenceInput, geofenceInputSchemaFor, geofenceListQuery} from '../../geofences/input.js'
import {geofenceJsonText} from '../../geofences/json.js'
import {
  createGeofence, deleteGeofence, getGeofence, listGeofences,
  type GeofenceRef, type GeofenceRow, updateGeofenceById, upsertGeofenceByKey, usersInGeofence,
} from '../../geofences/store.js'
import {pageSchema} from '../../paging-input.js'
import {usersJson} from '../../users/view.js'
import {metadataFilters, parse} from '../../validate.js'
import {pageStream} from '../paging.js'
import type {ApiRequest} from '../request.js'
import type {Api} from '../router.js'
import {JsonText} from '../send.js'

const param = (req: ApiRequest, name: string) => String(req.params[name])
const refOf = (req: ApiRequest): GeofenceRef =>
  'externalId' in req.params ? {tag: param(req, 'tag'), externalId: param(req, 'externalId')} : {id: param(req, 'id')}

/**
 * `{meta: {code: 200}, geofence}` and the list body are written as text around each stored
 * geometry, so geometries are never parsed and re-serialised on the way out.
 */
const one = (row: GeofenceRow) => new JsonText(`{"meta":{"code":200},"geofence":${geofenceJsonText(row)}}`)

/** `/v1/geofences`: create, upsert, read, list, delete, and the users inside one. */
export function geofencesRoutes(api: Api): void {
  const {store} = api.ctx
  const S = {auth: 'S', limit: 'data'} as const
  const schema = geofenceInputSchemaFor(api.ctx)
  const input = (req: ApiRequest): GeofenceInput => parse(schema, req.body)

  api.route('get', '/geofences', S, async (req) => {
    const {tag, externalId, ...page} = parse(geofenceListQuery, req.query)
    const filters = {tag, externalId, metadata: metadataFilters(req.query.metadata)}
    return pageStream('geofences', listGeofences(store, req.auth.live, page, filters), (rows) => rows.map(geofenceJsonText))
  })

  api.route('post', '/geofences', S, async (req) => {
    const body = input(req)
    return one(await createGeofence(store, req.auth.live, body))
  })

  api.route('get', '/geofences/:tag/:externalId/users', S, async (req) => {
    const {live} = req.auth
    const page = parse(pageSchema(1000, 100), req.query)
    const geofence = await getGeofence(store, live, refOf(req))
    if (!geofence) throw refuse.notFound('geofence')
    return pageStream('users', usersInGeofence(store, live, geofence.id, page), async (rows) => (await usersJson(store, rows)).map((user) => JSON.stringify(user)))
  })

  api.route('put', '/geofences/:tag/:externalId', S, async (req) => {
    const body = input(req)
    return one(await upsertGeofenceByKey(store, req.auth.live, param(req, 'tag'), param(req, 'externalId'), body))
  })

  api.route('put', '/geofences/:id', S, async (req) => {
    const row = await updateGeofenceById(store, req.auth.live, param(req, 'id'), input(req))
    if (!row) throw refuse.notFound('geofence')
    return one(row)
  })

  for (const path of ['/geofences/:tag/:externalId', '/geofences/:id']) {
    api.route('get', path, S, async (req) => {
      const row = await getGeofence(store, req.auth.live, refOf(req))
      if (!row) throw refuse.notFound('geofence')
      return one(row)
    })
    api.route('delete', path, S, async (req) => {
      if (!(await deleteGeofence(store, req.auth.live, refOf(req)))) throw refuse.notFound('geofence')
      return {meta: {code: 200}}
    })
  }
}
