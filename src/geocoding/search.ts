import {mayHold} from '../map/manifest.js'
import type {MapData} from '../map/mapdata.js'
import type {Doc} from './docs.js'
import {type Geocoder, type Hit, geocoder} from './index.js'
import {DEFAULT_LAYERS, type AutocompleteInput, type ForwardInput, type ReverseInput} from './input.js'
import {countryCodeAt} from './country.js'
import {distinctHits} from './identity.js'
import {type AddressJson, addressJson, addressText} from './json.js'
import {Localizer} from './names.js'
import {queryTokens} from './normalize.js'
import {countryName} from './regions.js'

/** Hits of every region (or of `regions`), best first, each thing once (identity.ts). */
function searchAll(map: MapData, query: string, opts: Parameters<NonNullable<ReturnType<typeof geocoder>>['search']>[1], regions = map.regions()): Hit[] {
  const words = queryTokens(query)
  const hits: {hit: Hit; region: string}[] = []
  for (const region of regions) {
    const g = geocoder(map, region.name)
    if (g) for (const hit of g.search(words, opts)) hits.push({hit, region: region.name})
  }
  // hits matching every query word first (index.ts); a stable sort: equal hits stay in region order
  return distinctHits(map, hits.sort((a, b) => Number(!!b.hit.complete) - Number(!!a.hit.complete) || b.hit.score - a.hit.score), opts.limit)
}

/** `GET /v1/geocode/forward`: complete addresses (and coarser places) for a text. */
export function forwardGeocode(map: MapData, input: ForwardInput): AddressJson[] {
  // without `lang` every name is the local one (`name`), countries in English
  const hits = searchAll(map, input.query, {layers: input.layers ?? DEFAULT_LAYERS, countries: input.country, limit: 10, lang: input.lang})
  return hits.map((h) => addressJson(h))
}

/**
 * A best hit scoring under this matched too little of the text to stand for it: a whole address
 * scores about 1.3 (with an unknown town added, about 1.05), text sharing only a house number or a
 * word with the map about 0.3.
 */
const ADDRESS_SCORE = 1

/**
 * The point of an address: the first answer of forward geocoding (default layers) when that is an
 * address, exact or interpolated, matching the text; null otherwise (a street or an area is no
 * point). With `near`, only the regions whose bounds hold `near` are searched.
 */
export function geocodePoint(map: MapData, text: string, near?: [number, number]): [number, number] | null {
  const regions = map.regions().filter((r) => !near || mayHold(r, near[0], near[1]))
  const [best] = searchAll(map, text, {layers: DEFAULT_LAYERS, limit: 1}, regions)
  return best && best.doc.layer === 'address' && best.score >= ADDRESS_SCORE ? [best.lon, best.lat] : null
}

/** `GET /v1/search/autocomplete`: prefix search as the user types, biased to `near`. */
export function autocomplete(map: MapData, input: AutocompleteInput, near?: [number, number]): AddressJson[] {
  const at = input.near ?? near
  return autocompleteHits(map, input, at).map((h) => addressJson(h, {placeLabel: true, distance: at ? distanceM(at, h) : undefined}))
}

/** `autocomplete` as the JSON text of its array of addresses (each doc's text built once, as `addressText`). */
export function autocompleteText(map: MapData, input: AutocompleteInput, near?: [number, number]): string {
  const at = input.near ?? near
  return `[${autocompleteHits(map, input, at).map((h) => addressText(h, {placeLabel: true, distance: at ? distanceM(at, h) : undefined})).join(',')}]`
}

function autocompleteHits(map: MapData, input: AutocompleteInput, at: [number, number] | undefined): Hit[] {
  return searchAll(map, input.query, {prefix: true, layers: input.layers ?? DEFAULT_LAYERS, countries: input.countryCode, near: at, limit: input.limit, lang: input.lang})
}

const distanceM = (at: [number, number], h: Hit) => {
  const R = 6371008.8, rad = Math.PI / 180
  const dLat = (h.lat - at[1]) * rad, dLon = (h.lon - at[0]) * rad
  const a = Math.sin(dLat / 2) ** 2 + Math.cos(at[1] * rad) * Math.cos(h.lat * rad) * Math.sin(dLon / 2) ** 2
  return 2 * R * Math.asin(Math.sqrt(a))
}

/** How far reverse geocoding looks for an address point, then for a street line. */
export const REVERSE_ADDRESS_M = 100
export const REVERSE_STREET_M = 200

/**
 * `GET /v1/geocode/reverse`: the nearest address within 100 m, else the nearest street within 200 m,
 * else the most specific admin area containing the point (polygons, place nodes, shipped country shapes).
 */
export function reverseGeocode(map: MapData, input: ReverseInput): AddressJson[] {
  const [lon, lat] = input.coordinates
  const layers = input.layers ?? DEFAULT_LAYERS
  const regions = map.regions().filter((r) => mayHold(r, lon, lat, 0.05))
  const engines = regions.map((r) => geocoder(map, r.name)).filter((g) => !!g)
  const fine = new Set([...layers].filter((l) => l === 'address' || l === 'place'))
  // the doc in `lang`, by the engine that found it
  const local = (g: Geocoder | undefined, doc: Doc) => (!input.lang ? doc : g ? g.localize(doc, input.lang) : countryOnly.localize(doc, input.lang))
  if (fine.size) {
    let best: {doc: Doc; distance: number; g: Geocoder} | null = null
    for (const g of engines) {
      const [hit] = g.near(lon, lat, REVERSE_ADDRESS_M, fine, 1)
      if (hit && (!best || hit.distance < best.distance)) best = {...hit, g}
    }
    if (best) return [addressJson({doc: local(best.g, best.doc), lon: best.doc.lon, lat: best.doc.lat, confidence: 'exact'}, {distance: best.distance})]
  }
  if (layers.has('street')) {
    let best: (NonNullable<ReturnType<Geocoder['nearestStreet']>> & {g: Geocoder}) | null = null
    for (const g of engines) {
      const hit = g.nearestStreet(lon, lat, REVERSE_STREET_M)
      if (hit && (!best || hit.distance < best.distance)) best = {...hit, g}
    }
    if (best) return [addressJson({doc: local(best.g, best.doc), lon: best.lon, lat: best.lat, confidence: 'fallback'}, {distance: best.distance})]
  }
  const area = areaAt(engines, lon, lat, layers)
  return area ? [addressJson({doc: local(engines[0], area), lon, lat, confidence: 'fallback'}, {distance: 0})] : []
}

const countryOnly = new Localizer()

/** The most specific admin area at a point among `layers`, as a doc (also without any region: shipped country shapes). */
function areaAt(engines: NonNullable<ReturnType<typeof geocoder>>[], lon: number, lat: number, layers: ReadonlySet<string>): Doc | null {
  const parts = engines.length ? engines[0].admin.at(lon, lat) : null
  const base = parts ?? {country: null, countryCode: null, state: null, stateCode: null, county: null, city: null, borough: null, neighborhood: null, postalCode: null}
  if (!parts) {
    // no region covers the point: the country from the shapes shipped with country-coder
    base.countryCode = countryCodeAt(lon, lat)
  }
  base.country ??= countryName(base.countryCode)
  const doc = (layer: Doc['layer'], name: string | null): Doc => ({...base, layer, name, number: null, unit: null, street: null, lon, lat, importance: 0, category: null, ref: null})
  if (layers.has('postalCode') && base.postalCode) return doc('postalCode', base.postalCode)
  if (layers.has('neighborhood') && base.neighborhood) return doc('neighborhood', base.neighborhood)
  if (layers.has('locality') && base.city) return {...doc('locality', base.city), neighborhood: null}
  if (layers.has('county') && base.county) return doc('county', base.county)
  if (layers.has('state') && base.state) return doc('state', base.state)
  if (layers.has('country') && base.countryCode) return doc('country', base.country)
  return null
}
