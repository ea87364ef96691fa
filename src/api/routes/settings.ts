import {getSettings, setSettings} from '../../project/settings.js'
import {placesSettingsPatch} from '../../project/settings-input.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'

/** Places settings (`/v1/settings`): the `places.*` project settings of the key's environment. */
export function settingsRoutes(api: Api): void {
  const {store} = api.ctx
  const body = (live: boolean) => {
    const s = getSettings(store, live)
    return {meta: {code: 200}, chainMetadata: s['places.chainMetadata'], chainMappings: s['places.chainMappings'], placeFilters: s['places.placeFilters']}
  }

  api.route('get', '/settings', {auth: 'S', limit: 'data'}, (req) => body(req.auth.live))

  api.route('patch', '/settings', {auth: 'S', limit: 'data'}, async (req) => {
    await setSettings(store, req.auth.live, parse(placesSettingsPatch, req.body))
    return body(req.auth.live)
  })
}
