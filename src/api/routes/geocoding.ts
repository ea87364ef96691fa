import {autocompleteText, forwardGeocode, reverseGeocode} from '../../geocoding/search.js'
import {autocompleteQuery, forwardQuery, placesQuery, reverseQuery, validateQuery} from '../../geocoding/input.js'
import {validateAddress} from '../../geocoding/validate.js'
import {searchPlaces} from '../../geocoding/places.js'
import {getSettings} from '../../project/settings.js'
import {parse} from '../../validate.js'
import type {Api} from '../router.js'
import {JsonText} from '../send.js'

/** Geocoding: `/v1/geocode/forward|reverse|ip`, `/v1/search/autocomplete` (+ `/click`), `/v1/search/places`, `/v1/addresses/validate`. */
export function geocodingRoutes(api: Api): void {
  const {map, ip, store} = api.ctx
  const geocode = {auth: 'P', limit: 'geocode'} as const

  api.route('get', '/geocode/forward', geocode, (req) => ({meta: {code: 200}, addresses: forwardGeocode(map, parse(forwardQuery, req.query))}))

  api.route('get', '/geocode/reverse', geocode, (req) => ({meta: {code: 200}, addresses: reverseGeocode(map, parse(reverseQuery, req.query))}))

  api.route('get', '/search/autocomplete', geocode, (req) => {
    const input = parse(autocompleteQuery, req.query)
    const r = input.near ? null : ip.lookup(req.ip)
    const near: [number, number] | undefined = r ? [r.longitude!, r.latitude!] : undefined
    return new JsonText(`{"meta":{"code":200},"addresses":${autocompleteText(map, input, near)}}`)
  })

  api.route('post', '/search/autocomplete/click', geocode, (_req, res) => {
    res.statusCode = 204
    res.end()
    return undefined
  })

  api.route('get', '/search/places', {auth: 'P', limit: 'searchPlaces'}, (req) => {
    const input = parse(placesQuery, req.query)
    return {meta: {code: 200}, places: searchPlaces(map, input, getSettings(store, req.auth.live))}
  })

  api.route('get', '/addresses/validate', geocode, (req) => ({meta: {code: 200}, ...validateAddress(map, parse(validateQuery, req.query))}))

  api.route('get', '/geocode/ip', {auth: 'P', limit: 'ipGeocode'}, (req) => {
    const ranges = getSettings(store, req.auth.live)['fraud.proxyRanges']
    return new JsonText(`{"meta":{"code":200},${ip.geocodeText(req.ip, ranges)}}`)
  })
}
