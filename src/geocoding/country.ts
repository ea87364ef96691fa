import {createRequire} from 'node:module'

type CountryCoder = typeof import('@rapideditor/country-coder')
let coder: CountryCoder | undefined

/**
 * The ISO 3166-1 alpha-2 code of the country at a point, from the shapes shipped with
 * @rapideditor/country-coder; loaded on first use (parsing its shapes takes ~0.3 s, which CLI
 * commands that never geocode should not pay).
 */
export function countryCodeAt(lon: number, lat: number): string | null {
  coder ??= createRequire(import.meta.url)('@rapideditor/country-coder') as CountryCoder
  return coder.iso1A2Code([lon, lat]) ?? null
}
