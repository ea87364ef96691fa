import {createRequire} from 'node:module'

type CountryCoder = typeof import('@rapideditor/country-coder')
let coder: CountryCoder | undefined

/**
 * The ISO 3166-1 alpha-2 code of the country at a point, from the shapes shipped with
 * @rapideditor/country-coder; loaded on first use (parsing its shapes takes ~0.3 s, which CLI
 * commands that never geocode should not pay).
 */
export function countryCodeAt(lon: number, lat: number): string | null {
  return countryCoder().iso1A2Code([lon, lat]) ?? null
}

/** The countries whose shipped shapes meet a bbox [minLon, minLat, maxLon, maxLat] (country level, as `countryCodeAt` answers). */
export function countryCodesIn(b: [number, number, number, number]): string[] {
  const out: string[] = []
  for (const f of countryCoder().featuresContaining(b)) if (f.properties.level === 'country' && f.properties.iso1A2) out.push(f.properties.iso1A2)
  return out
}

/** How far, and in how many directions, `countryCodeBeside` looks past an imported border. */
const BESIDE_M = [150, 600, 2500]
const BESIDE_DIRECTIONS = 8

/**
 * The country at a point that lies outside the imported country polygons of `outside`: the shipped
 * shapes' answer, unless that is one of those countries (their borders are simplified, ~100 m off
 * near the line: a Cap-d'Ail street shows as Monaco); then the first other country found around
 * the point, within 2.5 km, else none (open sea past the imported territorial waters).
 */
export function countryCodeBeside(lon: number, lat: number, outside: ReadonlySet<string>): string | null {
  const here = countryCodeAt(lon, lat)
  if (!here || !outside.has(here)) return here
  const k = Math.max(0.01, Math.cos((lat * Math.PI) / 180))
  for (const m of BESIDE_M) {
    for (let i = 0; i < BESIDE_DIRECTIONS; i++) {
      const a = (2 * Math.PI * i) / BESIDE_DIRECTIONS, d = m / 111_320
      const code = countryCodeAt(lon + (d * Math.cos(a)) / k, lat + d * Math.sin(a))
      if (code && !outside.has(code)) return code
    }
  }
  return null
}

/**
 * Whether `code` (upper case) is an ISO 3166-1 alpha-2 code of a country or territory that
 * country-coder knows: `UK` (an alias of GB), `EU` and `UN` (groupings) and `XX` are not.
 */
export function isCountryCode(code: string): boolean {
  if (!/^[A-Z]{2}$/.test(code)) return false
  const props = countryCoder().feature(code)?.properties
  return props?.iso1A2 === code && props.level !== 'union' && props.level !== 'unitedNations'
}

function countryCoder(): CountryCoder {
  return (coder ??= createRequire(import.meta.url)('@rapideditor/country-coder') as CountryCoder)
}
