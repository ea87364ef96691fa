import {beaconRanging, beaconsNear} from '../../beacons/search.js'
import {eventJsonText} from '../../events/json.js'
import {contextAt} from '../../tracking/context.js'
import {beaconSearchQuery, contextQuery, trackSchema} from '../../tracking/input.js'
import {track} from '../../tracking/track.js'
import {etaFromRouting} from '../../tracking/trips.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'
import {JsonText} from '../send.js'

/** `POST /v1/track` (answered after its transaction commits), `GET /v1/context`, `GET /v1/search/beacons`. */
export function trackRoutes(api: Api): void {
  const {store, map} = api.ctx
  const deps = {store, map, routing: etaFromRouting(api.ctx.routing)}
  api.route('post', '/track', {auth: 'P', limit: 'track'}, async (req) => {
    const input = parse(trackSchema, req.body)
    const {events, userText} = await track(deps, req.auth.live, input, req.ip)
    return new JsonText(`{"meta":{"code":200},"events":[${events.map(eventJsonText).join(',')}],"user":${userText}}`)
  })

  api.route('get', '/context', {auth: 'P', limit: 'search'}, (req) => {
    const [lng, lat] = parse(contextQuery, req.query).coordinates
    return {meta: {code: 200}, ...contextAt({store, map}, req.auth.live, lng, lat)}
  })

  api.route('get', '/search/beacons', {auth: 'P', limit: 'search'}, async (req) => {
    const {near, limit} = parse(beaconSearchQuery, req.query)
    const beacons = await beaconsNear(store, req.auth.live, near[0], near[1], limit)
    return {meta: {code: 200, settings: {beacons: beaconRanging(store, req.auth.live)}}, beacons}
  })
}
