import {beaconCreateSchema, beaconListQuery, beaconUpdateSchema, beaconUpsertSchema} from '../../beacons/input.js'
import {beaconJson} from '../../beacons/json.js'
import {type BeaconRef, createBeacon, deleteBeacon, findBeacon, listBeacons, updateBeacon, upsertBeaconByTag} from '../../beacons/store.js'
import {refuse} from '../../errors.js'
import {parse} from '../../validate.js'
import {pageStream} from '../paging.js'
import type {ApiRequest} from '../request.js'
import type {Api} from '../router.js'

const refOf = (req: ApiRequest): BeaconRef =>
  req.params.externalId === undefined ? {id: String(req.params.id)} : {tag: String(req.params.tag), externalId: String(req.params.externalId)}

/** `/v1/beacons`: create, create-or-update, read, list and delete, by `_id` or by `tag` + `externalId`. */
export function beaconsRoutes(api: Api): void {
  const {store} = api.ctx
  const opts = {auth: 'S', limit: 'data'} as const
  const one = (row: Parameters<typeof beaconJson>[0]) => ({meta: {code: 200}, beacon: beaconJson(row)})

  api.route('get', '/beacons', opts, async (req) => {
    const {tag, externalId, ...page} = parse(beaconListQuery, req.query)
    return pageStream('beacons', listBeacons(store, req.auth.live, {tag, externalId}, page), (rows) => rows.map((row) => JSON.stringify(beaconJson(row))))
  })

  api.route('post', '/beacons', opts, async (req) => {
    const result = await createBeacon(store, req.auth.live, parse(beaconCreateSchema, req.body))
    return one(result.row)
  })

  api.route('put', '/beacons/:id', opts, async (req) => {
    const result = await updateBeacon(store, req.auth.live, String(req.params.id), parse(beaconUpdateSchema, req.body))
    if (!result) throw refuse.notFound('beacon')
    return one(result.row)
  })

  api.route('put', '/beacons/:tag/:externalId', opts, async (req) => {
    const {tag, externalId} = req.params as {tag: string; externalId: string}
    const input = {...parse(beaconUpsertSchema, req.body), tag, externalId}
    return one((await upsertBeaconByTag(store, req.auth.live, tag, externalId, input)).row)
  })

  for (const path of ['/beacons/:id', '/beacons/:tag/:externalId']) {
    api.route('get', path, opts, async (req) => {
      const row = await findBeacon(store, req.auth.live, refOf(req))
      if (!row) throw refuse.notFound('beacon')
      return one(row)
    })
    api.route('delete', path, opts, async (req) => {
      if (!(await deleteBeacon(store, req.auth.live, refOf(req)))) throw refuse.notFound('beacon')
      return {meta: {code: 200}}
    })
  }
}
