import type {Api} from '../router.js'
import {beaconsRoutes} from './beacons.js'
import {configRoutes} from './config.js'
import {eventsRoutes} from './events.js'
import {geofencesRoutes} from './geofences.js'
import {routeRoutes} from './route.js'
import {geocodingRoutes} from './geocoding.js'
import {searchRoutes} from './search.js'
import {settingsRoutes} from './settings.js'
import {syncRoutes} from './sync.js'
import {trackRoutes} from './track.js'
import {tripsRoutes} from './trips.js'
import {usersRoutes} from './users.js'

/** Every `/v1` route group, in one list so the API surface reads from here. */
export const routeGroups: Array<(api: Api) => void> = [
  configRoutes,
  settingsRoutes,
  syncRoutes,
  geofencesRoutes,
  beaconsRoutes,
  usersRoutes,
  tripsRoutes,
  eventsRoutes,
  trackRoutes,
  routeRoutes,
  geocodingRoutes,
  searchRoutes,
]
