import {withinOneEdit} from './fuzzy.js'
import {fold, tokens} from './normalize.js'

/** Words that say where on a street or what kind of street, not which street: a missing one is a correction, not a mismatch. */
const LOOSE = new Set(['north', 'south', 'east', 'west', 'northeast', 'northwest', 'southeast', 'southwest', 'street', 'avenue', 'road',
  'boulevard', 'drive', 'lane', 'place', 'square', 'court', 'crescent', 'highway', 'parkway', 'terrace', 'circle', 'plaza', 'alley', 'way', 'the'])

const LOOSE_WORDS = [...LOOSE].filter((w) => w.length >= 4)
/** A typed word one edit from a direction or street type is that word ("Streetx", "Avnue"). */
const looseWord = (w: string) => (LOOSE.has(w) || w.length < 4 ? w : LOOSE_WORDS.find((l) => withinOneEdit(w, l)) ?? w)

/** A street's comparable form: its search tokens joined ("W 23rd St" → "west 23 street"). */
export const streetKey = (street: string) => tokens(street).join(' ')

/** A house number's comparable form: folded, no spaces ("12 B" → "12b"). */
export const numberKey = (number: string) => fold(number).replace(/\s+/g, '')

/** A unit's comparable form: no designator, no `#`, folded ("Apt. 4B", "#4b" → "4b"). */
export const unitKey = (unit: string) =>
  fold(unit).replace(/^(apartment|apt|unit|suite|ste|room|rm|floor|fl|#)\.?\s*/, '').replace(/[#\s.]/g, '')

/**
 * How well a typed street matches a known one: 3 same tokens; 2 the same once directions and
 * street types are set aside ("Fayette St" for "East Fayette Street"); 1 one word one edit away; 0 not.
 */
export function streetLevel(typed: string, known: string): number {
  if (typed === known) return 3
  const a = typed.split(' ').map(looseWord), b = known.split(' ')
  const core = (t: string[]) => t.filter((w) => !LOOSE.has(w)).join(' ')
  const ca = core(a), cb = core(b)
  if (ca && ca === cb) return 2
  const wa = ca.split(' '), wb = cb.split(' ')
  if (!ca || wa.length !== wb.length) return 0
  let edits = 0
  for (let i = 0; i < wa.length; i++) {
    if (wa[i] === wb[i]) continue
    if (wa[i].length < 4 || !withinOneEdit(wa[i], wb[i]) || ++edits > 1) return 0
  }
  return 1
}

/** A postcode's comparable form: US ZIP without its +4, Canadian without the space, else folded without spaces. */
export function postcodeKey(countryCode: string, postcode: string): string {
  const p = fold(postcode).replace(/\s+/g, '')
  return countryCode === 'US' ? p.slice(0, 5) : p
}

/** The `+4` of a ZIP+4 ("21224-1234" → "1234"). */
export const plus4Of = (postcode: string | null) => (postcode && /^\d{5}-?(\d{4})$/.exec(postcode.trim())?.[1]) || null

/** A postcode as the country writes it: `21224`, `V6B 1A1`. */
export function postcodeText(countryCode: string, postcode: string): string {
  const p = postcode.trim().toUpperCase()
  if (countryCode === 'US') return p.slice(0, 5)
  if (countryCode === 'CA') {
    const c = p.replace(/\s+/g, '')
    return c.length === 6 ? `${c.slice(0, 3)} ${c.slice(3)}` : p
  }
  return postcode.trim()
}

export interface StreetLine {
  number: string | null
  street: string | null
  unit: string | null
}

const UNIT_AT_END = /[\s,]+(?:#|(?:apartment|apt|unit|suite|ste|room|rm|floor|fl)\.?\s*#?)\s*([\p{L}\p{N}-]+)\s*$/iu
const NUMBER_FIRST = /^(\d+\s\d\/\d|\d+[\p{L}]?(?:[-/]\d+[\p{L}]?)?)\s+(.+)$/u
const NUMBER_LAST = /^(.+?)\s+(\d+[\p{L}]?(?:[-/]\d+[\p{L}]?)?)$/u

/**
 * An address line split into number, street and unit: "2400 Boston St Apt 118", "2400 Boston St #118",
 * "Hauptstraße 12"; in Canada "118-2400 Boston St" puts the unit first (in Queens "123-45" is one number).
 */
export function splitAddressLabel(label: string, countryCode: string): StreetLine {
  let line = label.trim().replace(/\s+/g, ' ')
  let unit: string | null = null
  const u = UNIT_AT_END.exec(line)
  if (u) {
    unit = u[1]
    line = line.slice(0, u.index).trim()
  }
  line = line.replace(/,\s*$/, '')
  if (countryCode === 'CA' && !unit) {
    const ca = /^([\p{L}\p{N}]+)-(\d+[\p{L}]?)\s+(.+)$/u.exec(line)
    if (ca) return {unit: ca[1], number: ca[2], street: ca[3]}
  }
  const first = NUMBER_FIRST.exec(line)
  if (first) return {number: first[1], street: first[2], unit}
  const last = NUMBER_LAST.exec(line)
  if (last) return {number: last[2], street: last[1], unit}
  return {number: null, street: line || null, unit}
}
