import type {Api} from '../router.js'
import {configRoutes} from './config.js'
import {settingsRoutes} from './settings.js'

/** Every `/v1` route group, in one list so the API surface reads from here. */
export const routeGroups: Array<(api: Api) => void> = [
  configRoutes,
  settingsRoutes,
]
