import {geofenceSearchQuery, searchGeofences} from '../../geofences/search.js'
import {searchUsers, userSearchQuery} from '../../users/search.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'

/** `GET /v1/search/geofences` (P) and `GET /v1/search/users` (S): nearest first. */
export function searchRoutes(api: Api): void {
  const {store, isochrones} = api.ctx

  api.route('get', '/search/geofences', {auth: 'P', limit: 'search'}, (req) =>
    ({meta: {code: 200}, geofences: searchGeofences(store, req.auth.live, parse(geofenceSearchQuery, req.query))}))

  api.route('get', '/search/users', {auth: 'S', limit: 'search'}, async (req) =>
    ({meta: {code: 200}, users: await searchUsers(store, isochrones, req.auth.live, parse(userSearchQuery, req.query))}))
}
