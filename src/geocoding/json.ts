import type {Doc} from './docs.js'
import type {Hit} from './index.js'
import {countryFlag} from './regions.js'
import {timeZoneAt, timeZoneText} from './timezone.js'

/** Countries that write the house number after the street ("Hauptstraße 12"). */
const NUMBER_AFTER = new Set(['DE', 'AT', 'CH', 'LI', 'IT', 'ES', 'PT', 'NL', 'BE', 'PL', 'CZ', 'SK', 'DK', 'SE', 'NO', 'FI', 'IS', 'HR', 'SI', 'HU', 'RS', 'BA', 'ME', 'AD', 'MX', 'BR', 'AR', 'CL', 'CO', 'PE', 'TR', 'GR', 'RO', 'BG', 'EE', 'LV', 'LT', 'RU', 'UA'])
/** Countries that write the postcode after the city ("New York, NY 10001"). */
const POSTCODE_AFTER = new Set(['US', 'CA', 'GB', 'IE', 'AU', 'NZ', 'BR', 'JP', 'KR', 'IN'])

/** "12 Main St" or "Hauptstraße 12", with the unit when known. */
export function addressLabel(d: Pick<Doc, 'number' | 'street' | 'unit' | 'countryCode'>): string | null {
  if (!d.street) return null
  const line = !d.number ? d.street : NUMBER_AFTER.has(d.countryCode ?? '') ? `${d.street} ${d.number}` : `${d.number} ${d.street}`
  return d.unit ? `${line} ${/^\d/.test(d.unit) ? '#' : ''}${d.unit}` : line
}

/** The one-line address in the country's convention. */
export function formattedAddress(d: Doc, label: string | null): string {
  const cc = d.countryCode ?? ''
  const parts: string[] = []
  if (d.layer === 'place' && d.name) parts.push(d.name)
  if (label) parts.push(label)
  else if (d.layer !== 'place' && d.name && d.layer !== 'postalCode') parts.push(d.name)
  const city = d.city && d.city !== d.name ? d.city : null
  if (POSTCODE_AFTER.has(cc)) {
    const region = [d.stateCode ?? (d.layer === 'state' ? null : d.state), d.postalCode].filter(Boolean).join(' ')
    if (city) parts.push(city)
    if (region) parts.push(region)
  } else {
    const local = [d.postalCode, city].filter(Boolean).join(' ')
    if (local) parts.push(local)
  }
  if (d.country && d.layer !== 'country') parts.push(cc === 'US' ? 'USA' : d.country)
  return parts.join(', ')
}

export interface AddressJson {
  latitude: number
  longitude: number
  geometry: {type: 'Point'; coordinates: [number, number]}
  country?: string
  countryCode?: string
  countryFlag?: string
  county?: string
  confidence: Hit['confidence']
  borough?: string
  city?: string
  number?: string
  neighborhood?: string
  postalCode?: string
  stateCode?: string
  state?: string
  street?: string
  layer: string
  formattedAddress: string
  addressLabel?: string
  placeLabel?: string
  distance?: number
  timeZone?: NonNullable<ReturnType<typeof timeZoneAt>>
  [key: string]: unknown
}

const r7 = (v: number) => Math.round(v * 1e7) / 1e7

/** The spec's Address object; empty fields are left out, as the hosted original does. */
export function addressJson(hit: Pick<Hit, 'doc' | 'lon' | 'lat' | 'confidence'>, extra: {distance?: number; placeLabel?: boolean; now?: Date} = {}): AddressJson {
  const out = docJson(hit, extra)
  if (extra.distance !== undefined) out.distance = Math.round(extra.distance)
  const tz = timeZoneAt(hit.lon, hit.lat, extra.now)
  if (tz) out.timeZone = tz
  return out
}

/** per answer variant (confidence, placeLabel), a doc's Address JSON text up to its distance: built once per doc while the cache holds it */
const docTexts = new Map<string, Map<Doc, string>>()
let cachedTexts = 0
const MAX_CACHED_TEXTS = 50_000

/** `addressJson` as JSON text: the doc's own part cached, the distance and the time zone spliced. */
export function addressText(hit: Pick<Hit, 'doc' | 'lon' | 'lat' | 'confidence'>, extra: {distance?: number; placeLabel?: boolean} = {}): string {
  const tail = `${extra.distance !== undefined ? `,"distance":${Math.round(extra.distance)}` : ''}${tzMember(hit.lon, hit.lat)}}`
  // an interpolated point is not the doc's own
  if (hit.lon !== hit.doc.lon || hit.lat !== hit.doc.lat) return JSON.stringify(docJson(hit, extra)).slice(0, -1) + tail
  const variant = `${hit.confidence}${extra.placeLabel ? '+label' : ''}`
  let texts = docTexts.get(variant)
  if (!texts) docTexts.set(variant, (texts = new Map()))
  let text = texts.get(hit.doc)
  if (text === undefined) {
    if (cachedTexts >= MAX_CACHED_TEXTS) {
      docTexts.forEach((m) => m.clear())
      cachedTexts = 0
    }
    texts.set(hit.doc, (text = JSON.stringify(docJson(hit, extra)).slice(0, -1)))
    cachedTexts++
  }
  return text + tail
}

function tzMember(lon: number, lat: number): string {
  const tz = timeZoneText(lon, lat)
  return tz ? `,"timeZone":${tz}` : ''
}

/** The Address object but its distance and time zone. */
function docJson(hit: Pick<Hit, 'doc' | 'lon' | 'lat' | 'confidence'>, extra: {placeLabel?: boolean}): AddressJson {
  const d = hit.doc
  const city = d.layer === 'locality' ? d.name : d.city
  const label = d.layer === 'address' || d.layer === 'street' || (d.layer === 'place' && d.street) ? addressLabel(d) : null
  const out: AddressJson = {
    latitude: r7(hit.lat),
    longitude: r7(hit.lon),
    geometry: {type: 'Point', coordinates: [r7(hit.lon), r7(hit.lat)]},
    confidence: hit.confidence,
    layer: d.layer,
    formattedAddress: formattedAddress({...d, city}, label),
  }
  const set = (key: string, value: string | null | undefined) => {
    if (value) out[key] = value
  }
  set('country', d.country)
  set('countryCode', d.countryCode)
  set('countryFlag', countryFlag(d.countryCode))
  set('county', d.layer === 'county' ? d.name : d.county)
  set('borough', d.borough)
  set('city', city)
  set('number', d.number)
  set('neighborhood', d.layer === 'neighborhood' ? d.name : d.neighborhood)
  set('postalCode', d.postalCode)
  set('stateCode', d.stateCode)
  set('state', d.layer === 'state' ? d.name : d.state)
  set('street', d.street)
  set('unit', d.unit)
  set('addressLabel', label ?? (d.layer === 'place' ? d.name : null))
  if (extra.placeLabel && d.layer === 'place') set('placeLabel', d.name)
  if (d.layer === 'place' && d.category) out.placeCategory = d.category
  return out
}
