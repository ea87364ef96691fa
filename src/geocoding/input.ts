import {z} from 'zod'
import {PLACE_CATEGORIES} from '../osm/tags.js'
import {int, latLng, list, metadataFilters} from '../validate.js'
import type {DocLayer} from './docs.js'
import {LANGS} from './names.js'

const LAYER_NAMES = ['place', 'address', 'street', 'postalCode', 'locality', 'neighborhood', 'county', 'state', 'country', 'coarse', 'fine'] as const

const GROUPS: Record<string, DocLayer[]> = {
  address: ['address', 'street'],
  locality: ['locality', 'neighborhood'],
  coarse: ['postalCode', 'locality', 'neighborhood', 'county', 'state', 'country'],
  fine: ['address', 'street', 'place'],
}
/** Default when `layers` is omitted: address and coarse (spec). */
export const DEFAULT_LAYERS: ReadonlySet<DocLayer> = new Set([...GROUPS.address, ...GROUPS.coarse])

const layers = () =>
  list(z.string())
    .refine((l) => l.length > 0 && l.every((n) => (LAYER_NAMES as readonly string[]).includes(n)), {message: `must be a comma-separated list of ${LAYER_NAMES.join(', ')}`})
    .transform((names): ReadonlySet<DocLayer> => new Set(names.flatMap((n) => GROUPS[n] ?? [n as DocLayer])))

const countries = () =>
  list(z.string())
    .refine((l) => l.length > 0 && l.every((c) => /^[A-Za-z]{2}$/.test(c)), {message: 'must be comma-separated 2-letter country codes'})
    .transform((l) => new Set(l.map((c) => c.toUpperCase())))

const text = () => z.string({error: 'required: the text to search for'}).trim().min(1, {error: 'required: the text to search for'}).max(512, {error: 'up to 512 characters'})

const lang = () => z.enum(LANGS, {error: `must be one of ${LANGS.join(', ')}`}).optional()

export const forwardQuery = z.object({
  query: text(),
  layers: layers().optional(),
  country: countries().optional(),
  lang: lang(),
})

/** `lang` on reverse and autocomplete is an addition to the spec (forward only there), answered the same way. */
export const reverseQuery = z.object({
  coordinates: latLng(),
  layers: layers().optional(),
  lang: lang(),
})

export const autocompleteQuery = z.object({
  query: text(),
  near: latLng().optional(),
  layers: layers().optional(),
  limit: int(1, 100).default(10),
  countryCode: countries().optional(),
  lang: lang(),
})

export type ForwardInput = z.output<typeof forwardQuery>
export type ReverseInput = z.output<typeof reverseQuery>
export type AutocompleteInput = z.output<typeof autocompleteQuery>

const names = (what: string) =>
  list(z.string()).refine((l) => l.length > 0 && l.every((c) => c.length <= 100), {message: `must be a comma-separated list of ${what}`})

export const placesQuery = z
  .object({
    chains: names('chain slugs or mapped ids').optional(),
    // the hosted original's category names (restaurant, coffee-shop...) are not loc's: refused, not an empty answer
    categories: names('categories').superRefine((l, ctx) => {
      const unknown = l.find((c) => !PLACE_CATEGORIES.includes(c))
      if (unknown !== undefined) ctx.addIssue({code: 'custom', message: `"${unknown}" is not a place category; loc's import assigns ${PLACE_CATEGORIES.join(', ')}`})
    }).optional(),
    iataCode: z.string().regex(/^[A-Za-z]{3}$/, {error: 'must be a 3-letter IATA airport code'}).optional(),
    chainMetadata: z.unknown().optional().transform(metadataFilters),
    near: latLng().optional(),
    radius: int(1, 10000).default(1000),
    limit: int(1, 100).default(10),
  })
  .superRefine((v, ctx) => {
    if (v.iataCode) return
    if (!v.chains && !v.categories) ctx.addIssue({code: 'custom', path: ['chains'], message: 'required unless categories or iataCode is given'})
    else if (!v.near) ctx.addIssue({code: 'custom', path: ['near'], message: 'required: "latitude,longitude"'})
  })

const part = (max: number, what: string) =>
  z.string().trim().min(1, {error: `must not be empty: ${what}`}).max(max, {error: `up to ${max} characters`})

/** `GET /v1/addresses/validate`: city, postalCode and countryCode always; stateCode in the US and Canada; number and street, or addressLabel. */
export const validateQuery = z
  .object({
    number: part(32, 'the house number').optional(),
    street: part(256, 'the street name').optional(),
    addressLabel: part(512, 'the street line, e.g. "2400 Boston St Apt 118"').optional(),
    unit: part(64, 'the unit, e.g. "118" or "Apt 118"').optional(),
    city: part(128, 'the city'),
    stateCode: z.string().trim().regex(/^[A-Za-z]{2}$/, {error: 'must be a 2-letter state or province code'}).optional(),
    postalCode: part(16, 'the postal code'),
    countryCode: z.string().trim().regex(/^[A-Za-z]{2}$/, {error: 'must be a 2-letter country code'}),
  })
  .superRefine((v, ctx) => {
    const cc = v.countryCode.toUpperCase()
    if (!v.addressLabel) {
      if (!v.number) ctx.addIssue({code: 'custom', path: ['number'], message: 'required unless addressLabel is given'})
      else if (!v.street) ctx.addIssue({code: 'custom', path: ['street'], message: 'required unless addressLabel is given'})
    }
    if ((cc === 'US' || cc === 'CA') && !v.stateCode) ctx.addIssue({code: 'custom', path: ['stateCode'], message: 'required in the US and Canada: a 2-letter state or province code'})
    if (cc === 'US' && !/^\d{5}(-?\d{4})?$/.test(v.postalCode)) ctx.addIssue({code: 'custom', path: ['postalCode'], message: 'a 5-digit ZIP code, or ZIP+4 (21224-1234)'})
    if (cc === 'CA' && !/^[A-Za-z]\d[A-Za-z] ?\d[A-Za-z]\d$/.test(v.postalCode)) ctx.addIssue({code: 'custom', path: ['postalCode'], message: 'a Canadian postal code (V6B 1A1)'})
  })
