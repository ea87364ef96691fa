import {z} from 'zod'
import {PLACE_CATEGORIES} from '../osm/tags.js'
import {list, TEXT_MAX} from '../validate.js'

const slug = z.string().max(TEXT_MAX.id)
const key = z.string().max(TEXT_MAX.metadataKey)
const VALUE = `must be a string (up to ${TEXT_MAX.metadataValue} characters), a number or a boolean`
const within = (max: number) => (record: object) => Object.keys(record).length <= max
/** A filter naming a category no imported place can have would silently match nothing: refused. */
const category = z.string().refine((name) => PLACE_CATEGORIES.includes(name), `each must be a place category loc's import assigns: ${PLACE_CATEGORIES.join(', ')}`)

/** The places settings' values, as `PATCH /v1/settings` and `loc settings set places.*` take them. */
export const PLACES_SETTINGS = {
  chainMetadata: z.record(slug, z.record(key, z.union([z.string().max(TEXT_MAX.metadataValue), z.number(), z.boolean()], {error: VALUE})).refine(within(64), {message: 'up to 64 keys'}))
    .refine(within(1000), {message: 'up to 1,000 chains'}),
  chainMappings: z.record(slug, z.string().max(TEXT_MAX.id)).refine(within(1000), {message: 'up to 1,000 chains'}),
  placeFilters: z.object({chain: list(slug).pipe(z.array(z.string()).max(1000)).optional(), category: list(category).pipe(z.array(z.string()).max(1000)).optional()}).strict(),
}

/**
 * `PATCH /v1/settings`: the places settings under their API names, given as the project settings
 * they change (`chainMetadata` → `places.chainMetadata`); fields left out keep their value.
 */
export const placesSettingsPatch = z.object({
  chainMetadata: PLACES_SETTINGS.chainMetadata.optional(),
  chainMappings: PLACES_SETTINGS.chainMappings.optional(),
  placeFilters: PLACES_SETTINGS.placeFilters.optional(),
}).transform((input) => {
  const values: Record<string, unknown> = {}
  if (input.chainMetadata) values['places.chainMetadata'] = input.chainMetadata
  if (input.chainMappings) values['places.chainMappings'] = input.chainMappings
  if (input.placeFilters) values['places.placeFilters'] = input.placeFilters
  return values
})
