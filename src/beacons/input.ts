import {z} from 'zod'
import {refuse} from '../errors.js'
import {pageSchema} from '../paging-input.js'
import {bool, jsonText, metadata, numeric, TEXT_MAX} from '../validate.js'

/** `[longitude, latitude]` as an array or a JSON string (the beacon CSV form). */
const position = z.preprocess(
  (value) => {
    const parsed = jsonText(value)
    return Array.isArray(parsed) ? parsed.map(numeric) : parsed
  },
  z.tuple([z.number(), z.number()], {error: 'must be [longitude, latitude]'})
    .refine(([lng, lat]) => lng >= -180 && lng <= 180 && lat >= -90 && lat <= 90, {
      message: 'must be [longitude, latitude] with longitude -180 to 180 and latitude -90 to 90',
    }),
)

/** Identifiers are strings; SDKs send major/minor as numbers too. */
const identifier = z.preprocess((v) => (typeof v === 'number' ? String(v) : v), z.string().min(1).max(TEXT_MAX.id))

const fields = {
  description: z.string().max(TEXT_MAX.description),
  tag: z.string().min(1).max(TEXT_MAX.id),
  externalId: z.string().min(1).max(TEXT_MAX.id),
  type: z.enum(['ibeacon', 'eddystone']),
  uuid: identifier.optional(),
  major: identifier.optional(),
  minor: identifier.optional(),
  uid: identifier.optional(),
  instance: identifier.optional(),
  coordinates: position,
  enabled: bool().default(true),
  metadata: metadata(16).nullish(),
}

const REQUIRED_IDS = {ibeacon: ['uuid', 'major', 'minor'], eddystone: ['uid', 'instance']} as const

function withTypeIds<T extends z.ZodObject>(schema: T) {
  return schema.superRefine((input: any, ctx) => {
    for (const key of REQUIRED_IDS[input.type as keyof typeof REQUIRED_IDS]) {
      if (input[key] === undefined) ctx.addIssue({code: 'custom', path: [key], message: `required for type ${input.type}`})
    }
  })
}

/** `POST /beacons`: tag and externalId required. */
export const beaconCreateSchema = withTypeIds(z.object(fields))
/** `PUT /beacons/:id`: tag and externalId may be left out. */
export const beaconUpdateSchema = withTypeIds(z.object({...fields, tag: fields.tag.nullish(), externalId: fields.externalId.nullish()}))
/** `PUT /beacons/:tag/:externalId`: both come from the path. */
export const beaconUpsertSchema = withTypeIds(z.object(fields).omit({tag: true, externalId: true}))

export const beaconListQuery = pageSchema(1000, 100).pick({limit: true, createdBefore: true, createdAfter: true}).extend({
  tag: z.string().optional(),
  externalId: z.string().optional(),
})

/** What a create or update that would repeat a `tag` + `externalId` pair is told. */
export const duplicateBeacon = () => refuse.conflict('externalId', 'must be unique within tag; a beacon with this tag and externalId exists')
