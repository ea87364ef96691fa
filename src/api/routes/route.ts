import {directionsQuery, distanceQuery, matchBody, matrixQuery, optimizeQuery} from '../../routing/input.js'
import {matchTrace} from '../../routing/match.js'
import {routeDirections, routeDistance, routeMatrix, routeOptimize} from '../../routing/service.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'

/** `/v1/route/*`: distance, matrix, directions, match, optimize over the imported road graphs. */
export function routeRoutes(api: Api): void {
  const {map} = api.ctx
  const routing = {auth: 'P', limit: 'routing'} as const
  const matrix = {auth: 'P', limit: 'matrix'} as const
  api.route('get', '/route/distance', routing, async (req) => ({meta: {code: 200}, ...routeDistance(map, parse(distanceQuery, req.query))}))
  api.route('get', '/route/matrix', matrix, async (req) => ({meta: {code: 200}, ...routeMatrix(map, parse(matrixQuery, req.query))}))
  api.route('get', '/route/directions', routing, async (req) => ({meta: {code: 200}, ...routeDirections(map, parse(directionsQuery, req.query))}))
  api.route('post', '/route/match', routing, async (req) => ({meta: {code: 200}, ...matchTrace(map, parse(matchBody, req.body))}))
  api.route('get', '/route/optimize', routing, async (req) => ({meta: {code: 200}, ...routeOptimize(map, parse(optimizeQuery, req.query))}))
}
