import type {MapData} from '../map/mapdata.js'
import type {Doc} from './docs.js'
import {addressLabel, formattedAddress} from './json.js'
import {fold} from './normalize.js'
import {numberKey, plus4Of, postcodeKey, postcodeText, splitAddressLabel, streetKey, streetLevel, unitKey} from './postal.js'
import {countryName} from './regions.js'
import {type ValidationIndex, validationIndex} from './validate-index.js'

export interface ValidateInput {
  number?: string
  street?: string
  addressLabel?: string
  unit?: string
  city: string
  stateCode?: string
  postalCode: string
  countryCode: string
}

export type VerificationStatus = 'verified' | 'partially verified' | 'ambiguous' | 'unverified'

export interface Validation {
  address: Record<string, unknown>
  result: {verificationStatus: VerificationStatus; analysis?: string[]}
}

/** One postal address the map knows (several buildings may carry it), as it compares with the input. */
interface Candidate {
  idx: ValidationIndex
  /** the doc's index in idx.docs */
  i: number
  doc: Doc
  street: number
  postcode: boolean
  town: string | null
  state: boolean | null
  score: number
  /** comparable unit → the unit as mapped */
  units: Map<string, string>
}

/** What a PO box, rural route or general delivery line looks like (USPS record types P, R, G): the map has none of them. */
const RECORD_TYPES: [RegExp, string][] = [
  [/^(p\.?\s*o\.?\s*box|post office box)\b/i, 'P'],
  [/^(rr|r\.r\.|rural route|hc|highway contract)\b/i, 'R'],
  [/^general delivery\b/i, 'G'],
]

/**
 * `GET /v1/addresses/validate`: the input compared with the imported addresses. The house number
 * picks the candidates, their streets are compared loosely (abbreviations, a missing direction or
 * street type, one typo), then postcode, town (any name its admin parts or `addr:city` give) and
 * state. verified: one postal address matches every part as typed (and its unit, where the building
 * has units); partially verified: one matches after corrections, or only the street is known there;
 * ambiguous: several match equally well; unverified: none.
 */
export function validateAddress(map: MapData, input: ValidateInput): Validation {
  return validateIn(map.regions().map((r) => validationIndex(map, r.name)).filter((x) => !!x), input)
}

/** `validateAddress` against the given regions' indexes (the benchmark's synthetic 10× index is one). */
export function validateIn(indexes: ValidationIndex[], input: ValidateInput): Validation {
  const cc = input.countryCode.toUpperCase()
  const line = input.number && input.street ? {number: input.number, street: input.street, unit: null} : splitAddressLabel(input.addressLabel ?? '', cc)
  const typed = {...line, unit: input.unit ?? line.unit, city: input.city, stateCode: input.stateCode?.toUpperCase() ?? null, postalCode: input.postalCode, cc}
  const special = RECORD_TYPES.find(([re]) => re.test(input.street ?? input.addressLabel ?? ''))
  if (special) return answer({...typed, number: null, street: input.addressLabel ?? `${input.street} ${input.number}`}, null, 'unverified', special[1])
  if (!typed.street) return answer(typed, null, 'unverified', 'S')
  const candidates = typed.number ? numberCandidates(indexes, typed) : []
  if (!candidates.length) return streetOnly(indexes, typed)
  if (candidates.length > 1 && candidates[1].score === candidates[0].score) return answer(typed, null, 'ambiguous', 'S')
  const best = candidates[0]
  const analysis: string[] = []
  let unit = typed.unit
  if (best.units.size) {
    if (!unit) analysis.push('unit:missing')
    else if (!best.units.has(unitKey(unit))) analysis.push('unit:invalid')
    else unit = best.units.get(unitKey(unit))!
  }
  const exact = best.street === 3 && best.postcode && best.town === fold(typed.city) && best.state !== false && !analysis.length
  const out = answer({...typed, unit}, best, exact ? 'verified' : 'partially verified', best.units.size ? 'H' : 'S')
  if (analysis.length) out.result.analysis = analysis
  return out
}

type Typed = {number: string | null; street: string | null; unit: string | null; city: string; stateCode: string | null; postalCode: string; cc: string}

/** The postal records with the typed number whose street matches, best first (score: street, then postcode, town, state). */
function numberCandidates(indexes: ValidationIndex[], typed: Typed): Candidate[] {
  const street = streetKey(typed.street!), number = numberKey(typed.number!)
  const byAddress = new Map<string, Candidate>()
  for (const idx of indexes) {
    // the records with that number in the typed postcode or town, in doc order (the first of equal addresses answers)
    const inPostcode = idx.byNumberAt.get(`${number}|pc:${postcodeKey(typed.cc, typed.postalCode)}`) ?? []
    const inTown = idx.byNumberAt.get(`${number}|town:${fold(typed.city)}`) ?? []
    const records = inTown.length ? [...new Set([...inPostcode, ...inTown])].sort((a, b) => a - b) : inPostcode
    for (const r of records) {
      const i = idx.recordDoc[r], doc = idx.docs[i]
      if (doc.countryCode && doc.countryCode !== typed.cc) continue
      const level = streetLevel(street, idx.streetKeys[i])
      if (!level) continue
      const c = compare(idx, i, idx.recordTowns[r], typed, level)
      if (!c) continue
      const units = idx.recordUnits[r]
      // the same address in two overlapping regions counts once
      const key = `${idx.streetKeys[i]}|${doc.city}|${doc.postalCode}`
      const same = byAddress.get(key)
      if (same) {
        if (units) same.units = new Map([...same.units, ...units])
        continue
      }
      if (units) c.units = units
      byAddress.set(key, c)
    }
  }
  return [...byAddress.values()].sort((a, b) => b.score - a.score)
}

/** How doc `i` (going by `towns`) agrees with the typed postcode, town and state; null when neither postcode nor town agrees. */
function compare(idx: ValidationIndex, i: number, towns: readonly string[], typed: Typed, street: number): Candidate | null {
  const doc = idx.docs[i]
  const postcode = !!doc.postalCode && postcodeKey(typed.cc, doc.postalCode) === postcodeKey(typed.cc, typed.postalCode)
  const city = fold(typed.city)
  const town = towns.includes(city) || (postcode && idx.postcodeTowns.get(postcodeKey(typed.cc, doc.postalCode!))?.has(city)) ? city : null
  if (!postcode && !town) return null
  const state = !typed.stateCode || !doc.stateCode ? null : doc.stateCode === typed.stateCode
  const score = street * 10 + (postcode ? 4 : 0) + (town ? 3 : 0) + (state === false ? -5 : state ? 1 : 0)
  return {idx, i, doc, street, postcode, town, state, score, units: new Map()}
}

/** No building with that number: the street in that postcode or town makes a partial match (the number is kept as typed). */
function streetOnly(indexes: ValidationIndex[], typed: Typed): Validation {
  const street = streetKey(typed.street!)
  const found: Candidate[] = []
  // the streets of the typed postcode and town: the one typed, else those it loosely matches
  const pc = `pc:${postcodeKey(typed.cc, typed.postalCode)}`, town = `town:${fold(typed.city)}`
  const exact = indexes.some((idx) => idx.streetsIn.get(pc)?.has(street) || idx.streetsIn.get(town)?.has(street))
  for (const idx of indexes) {
    const keys = exact ? [street] : new Set([...(idx.streetsIn.get(pc) ?? []), ...(idx.streetsIn.get(town) ?? [])])
    for (const key of keys) {
      const level = streetLevel(street, key)
      if (!level) continue
      // the first doc of that street in the typed postcode and town, in the postcode, in the town: the best of them
      let best: Candidate | null = null
      for (const at of [`${key}|${pc}|${town}`, `${key}|${pc}`, `${key}|${town}`]) {
        const i = idx.streetAt.get(at)
        if (i === undefined) continue
        const doc = idx.docs[i]
        if (doc.countryCode && doc.countryCode !== typed.cc) continue
        const c = compare(idx, i, idx.towns[i], typed, level)
        if (c && (!best || c.score > best.score)) best = c
      }
      if (best) found.push(best)
    }
  }
  found.sort((a, b) => b.score - a.score)
  if (!found.length) return answer(typed, null, 'unverified', 'S')
  if (found.length > 1 && found[1].score === found[0].score && found[1].doc.street !== found[0].doc.street) return answer(typed, null, 'ambiguous', 'S')
  return answer(typed, {...found[0], units: new Map()}, 'partially verified', 'S', false)
}

/** The response: the map's spelling of every part it matched, the typed value of the rest. */
function answer(typed: Typed, match: Candidate | null, status: VerificationStatus, recordType: string, located = true): Validation {
  const doc = match?.doc
  const cc = typed.cc
  const number = (located && doc?.number) || typed.number
  const street = doc?.street ?? typed.street
  // the town as typed when it is one of the names the address's town goes by
  const town = (match?.town && [doc!.city, doc!.borough, doc!.neighborhood, doc!.county].find((t) => t && fold(t) === match.town)) || (match?.town ? typed.city : doc?.city ?? typed.city)
  const stateCode = doc?.stateCode ?? typed.stateCode
  const postalCode = postcodeText(cc, doc?.postalCode ?? typed.postalCode)
  const label = addressLabel({number, street, unit: typed.unit, countryCode: cc})
  const address: Record<string, unknown> = {}
  const set = (key: string, value: unknown) => {
    if (value !== null && value !== undefined && value !== '') address[key] = value
  }
  set('addressLabel', label)
  set('unit', typed.unit)
  set('number', number)
  set('street', street)
  set('city', town)
  set('stateCode', stateCode)
  set('postalCode', postalCode)
  set('plus4', match?.postcode ? plus4Of(doc!.postalCode) : null)
  set('county', doc?.county)
  set('countryCode', cc)
  const parts = {number, street, unit: typed.unit, city: town, stateCode, state: null, postalCode, country: countryName(cc), countryCode: cc}
  set('formattedAddress', formattedAddress({...doc, ...parts, layer: 'address', name: null} as Doc, label))
  if (doc && located) {
    set('latitude', doc.lat)
    set('longitude', doc.lon)
  }
  address.metadata = {recordType, ...(located && match ? propertyType(match, number) : {})}
  return {address, result: {verificationStatus: status}}
}

/** From the building's `building=*`, else commercial when a business (a mapped place) has this address; unknown otherwise. */
function propertyType(match: Candidate, number: string | null): {propertyType?: string} {
  const use = match.idx.use[match.i]
  if (use) return {propertyType: use}
  return number && match.idx.firms.has(`${numberKey(number)}|${match.idx.streetKeys[match.i]}`) ? {propertyType: 'commercial'} : {}
}
