import {z} from 'zod'
import {getSettings, setSettings} from '../../project/settings.js'
import type {Api} from '../router.js'
import {list, parse} from '../validate.js'

const patchSchema = z.object({
  chainMetadata: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))).optional(),
  chainMappings: z.record(z.string(), z.string()).optional(),
  placeFilters: z.object({chain: list(z.string()).optional(), category: list(z.string()).optional()}).strict().optional(),
})

/** Places settings (`/v1/settings`): the `places.*` project settings of the key's environment. */
export function settingsRoutes(api: Api): void {
  const {store} = api.ctx
  const body = (live: boolean) => {
    const s = getSettings(store, live)
    return {meta: {code: 200}, chainMetadata: s['places.chainMetadata'], chainMappings: s['places.chainMappings'], placeFilters: s['places.placeFilters']}
  }

  api.route('get', '/settings', {auth: 'S', limit: 'data'}, (req) => body(req.auth.live))

  api.route('patch', '/settings', {auth: 'S', limit: 'data'}, async (req) => {
    const input = parse(patchSchema, req.body ?? {})
    const {live} = req.auth
    const values: Record<string, unknown> = {}
    if (input.chainMetadata) values['places.chainMetadata'] = input.chainMetadata
    if (input.chainMappings) values['places.chainMappings'] = input.chainMappings
    if (input.placeFilters) values['places.placeFilters'] = input.placeFilters
    await setSettings(store, live, values)
    return body(live)
  })
}
