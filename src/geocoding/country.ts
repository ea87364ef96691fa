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
