import {refuse} from '../../errors.js'
import {syncStartSchema} from '../../sync/input.js'
import {startSync} from '../../sync/run.js'
import {jobJson, syncRun, syncSource, syncSources} from '../../sync/sources.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'

/** `POST /v1/geofences/sync` starts a configured sync (202 with the job); `GET /v1/jobs/:id` polls it. */
export function syncRoutes(api: Api): void {
  const {store} = api.ctx
  const S = {auth: 'S', limit: 'data'} as const

  api.route('post', '/geofences/sync', S, async (req) => {
    const {live} = req.auth
    const {sourceId} = parse(syncStartSchema, req.body)
    let source
    if (sourceId !== undefined) {
      source = syncSource(store, sourceId)
      if (!source || source.live !== (live ? 1 : 0)) throw refuse.notFound('sync source')
    } else {
      const sources = syncSources(store, live)
      if (!sources.length) throw refuse.notFound('sync source')
      if (sources.length > 1) throw refuse.invalid('sourceId', `required when the environment has several sync sources (${sources.map((s) => s.id).join(', ')})`)
      source = sources[0]
    }
    const {run, recorded, done} = startSync(api.ctx, source, 'api')
    done.catch(() => undefined)
    await recorded
    return {meta: {code: 202}, job: jobJson(syncRun(store, run.id) ?? run, source)}
  })

  api.route('get', '/jobs/:id', S, async (req) => {
    const run = syncRun(store, String(req.params.id))
    if (!run || run.live !== (req.auth.live ? 1 : 0)) throw refuse.notFound('job')
    return {meta: {code: 200}, job: jobJson(run, syncSource(store, run.source_id))}
  })
}
