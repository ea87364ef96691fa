import {feature} from '@rapideditor/country-coder'
import {geocoder} from '../geocoding/index.js'
import {stateOf} from '../geocoding/regions.js'
import {type MapData, mayHold} from '../map/index.js'
import {shippedStateAt} from './states.js'

/** A region on a user or an event: ISO code, English name and, for countries, the flag emoji. */
export interface Region {
  type: 'country' | 'state' | 'dma' | 'postal_code'
  code: string
  name: string
  flag?: string
}

/** The flag emoji of an ISO 3166-1 alpha-2 code (regional indicator symbols). */
export function flagOf(code: string): string {
  return String.fromCodePoint(...[...code.toUpperCase()].map((c) => 0x1f1e6 + c.charCodeAt(0) - 65))
}

/**
 * The country at a point, from the borders shipped in @rapideditor/country-coder (no import
 * needed, offline, ~6 µs); undefined at sea. Territories with their own ISO code (e.g. Puerto
 * Rico) answer that code.
 */
export function countryAt(lng: number, lat: number): Region | undefined {
  const country = feature([lng, lat], {level: 'territory'})
  const props = country?.properties
  if (!props) return undefined
  const code = props.iso1A2 ?? (props.country ? feature(props.country)?.properties.iso1A2 : undefined)
  return code ? countryOf(code) : undefined
}

/** The country of an ISO 3166-1 alpha-2 code, named in English; undefined for a code it does not know. */
function countryOf(code: string): Region | undefined {
  const name = feature(code.toUpperCase())?.properties.nameEn
  return name ? {type: 'country', code: code.toUpperCase(), name, flag: flagOf(code)} : undefined
}

export {REGION_FIELDS} from './fields.js'

/**
 * Every region at a point that loc knows of, in REGION_FIELDS order, each `type` at most once
 * (DECISIONS): the country of the imported admin level 2 area holding the point, else from the
 * shipped borders; the state of the US or Canada from an imported admin level 4 area, else for the
 * US from the shipped state shapes; the US postal code from an imported postal-code area. DMA needs
 * a DMA dataset, which no import provides yet.
 */
export function regionsAt(lng: number, lat: number, map?: MapData): Region[] {
  const imported = map ? importedAreasAt(map, lng, lat) : []
  // an imported level 2 area is drawn finer than the shipped borders, and takes in its waters
  const level2 = imported.find((a) => a.kind === 'country' && a.cc && /^[A-Za-z]{2}$/.test(a.cc))
  const country = (level2 && countryOf(level2.cc!)) ?? countryAt(lng, lat)
  if (!country) return []
  const out: Region[] = [country]
  let state: Region | undefined
  let postal: Region | undefined
  for (const area of country.code === 'US' || country.code === 'CA' ? imported : []) {
    if (area.kind === 'state') state = importedState(country.code, area) ?? state
    else if (area.kind === 'postal_code' && country.code === 'US') {
      const code = area.postcode ?? area.name
      if (code) postal = {type: 'postal_code', code, name: code}
    }
  }
  if (!state && country.code === 'US') {
    const shipped = shippedStateAt(lng, lat)
    if (shipped) state = {type: 'state', code: shipped.code, name: shipped.name}
  }
  if (state) out.push(state)
  if (postal) out.push(postal)
  return out
}

/**
 * The state of an imported level 4 area: the code of its `ISO3166-2` tag when that is the
 * country's (`CA-BC`), else its name read as a code or an English name; named in English from the
 * table of codes (`British Columbia`, whatever the area's own name). An area of the neighbour
 * country (the shipped border and the imported one disagree near the line) gives none.
 */
function importedState(country: string, area: ImportedArea): Region | undefined {
  const iso = /^([A-Z]{2})-([A-Z0-9]{1,3})$/.exec(area.iso?.trim().toUpperCase() ?? '')
  const byIso = iso && iso[1] === country ? stateOf(country, iso[2]) : undefined
  const {state: name, stateCode} = byIso?.stateCode ? byIso : stateOf(country, area.name)
  return stateCode && name ? {type: 'state', code: stateCode, name} : undefined
}

interface ImportedArea {kind: string; name: string | null; postcode: string | null; iso: string | null; cc: string | null}

/** The imported admin areas holding the point, from every region whose bbox holds it. */
function importedAreasAt(map: MapData, lng: number, lat: number): ImportedArea[] {
  const out = []
  for (const region of map.regions()) {
    if (!mayHold(region, lng, lat)) continue
    const admin = geocoder(map, region.name)?.admin
    if (admin) out.push(...admin.containing(lng, lat))
  }
  return out
}

/** A region as users and events carry it: `code`, `name`, and `flag` for countries. */
export function regionJson(region: Region): Record<string, string> {
  return region.flag ? {code: region.code, name: region.name, flag: region.flag} : {code: region.code, name: region.name}
}
