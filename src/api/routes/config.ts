import type {Api} from '../router.js'

/** `GET /v1/config` (compat): the SDKs ask for client settings at start; loc has none to push yet. */
export function configRoutes(api: Api): void {
  api.route('get', '/config', {auth: 'P', limit: 'config'}, () => ({meta: {code: 200}}))
}
