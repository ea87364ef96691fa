import {feature} from '@rapideditor/country-coder'

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
  if (!code) return undefined
  const named = props.iso1A2 ? props : feature(code)!.properties
  return {type: 'country', code, name: named.nameEn, flag: flagOf(code)}
}

/** Every region at a point that loc knows of; each `type` at most once. */
export function regionsAt(lng: number, lat: number): Region[] {
  const country = countryAt(lng, lat)
  return country ? [country] : []
}
