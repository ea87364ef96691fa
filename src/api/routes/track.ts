import {trackSchema} from '../../tracking/input.js'
import {track} from '../../tracking/track.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'

/** `POST /v1/track`: answered after the track's transaction commits. */
export function trackRoutes(api: Api): void {
  const {store} = api.ctx
  api.route('post', '/track', {auth: 'P', limit: 'track'}, async (req) => {
    const input = parse(trackSchema, req.body ?? {})
    const result = await track({store}, req.auth.live, input, req.ip)
    return {meta: {code: 200}, ...result}
  })
}
