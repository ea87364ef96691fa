import {z} from 'zod'
import {list} from '../validate.js'

/**
 * `PATCH /v1/settings`: the places settings under their API names, given as the project settings
 * they change (`chainMetadata` → `places.chainMetadata`); fields left out keep their value.
 */
export const placesSettingsPatch = z.object({
  chainMetadata: z.record(z.string(), z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]))).optional(),
  chainMappings: z.record(z.string(), z.string()).optional(),
  placeFilters: z.object({chain: list(z.string()).optional(), category: list(z.string()).optional()}).strict().optional(),
}).transform((input) => {
  const values: Record<string, unknown> = {}
  if (input.chainMetadata) values['places.chainMetadata'] = input.chainMetadata
  if (input.chainMappings) values['places.chainMappings'] = input.chainMappings
  if (input.placeFilters) values['places.placeFilters'] = input.placeFilters
  return values
})
