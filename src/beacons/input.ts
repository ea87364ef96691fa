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

/** iOS monitors at most 20 regions per app: more UUIDs than that could never all be ranged. */
export const RANGED_IDS_MAX = 20

const UUID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/

/** `beacons.uuids`: iBeacon proximity UUIDs, 8-4-4-4-12 or 32 hex digits; stored lower case, hyphenated, each once. */
export const rangedUuids = z.array(z.string().transform((u) => u.toLowerCase())
  .refine((u) => UUID.test(u), 'each must be an iBeacon UUID: 32 hex digits, as 8-4-4-4-12 (f7826da6-4fa2-4e98-8024-bc5b71e0893e)')
  .transform((u) => u.replace(UUID, '$1-$2-$3-$4-$5')))
  .max(RANGED_IDS_MAX).transform((ids) => [...new Set(ids)])

/** `beacons.uids`: Eddystone-UID namespaces (10 bytes), an optional 0x dropped; stored lower case, each once. */
export const rangedUids = z.array(z.string().transform((u) => u.toLowerCase().replace(/^0x/, ''))
  .refine((u) => /^[0-9a-f]{20}$/.test(u), 'each must be an Eddystone namespace: 10 bytes as 20 hex digits (edd1ebeac04e5defa017)'))
  .max(RANGED_IDS_MAX).transform((ids) => [...new Set(ids)])

/** What a create or update that would repeat a `tag` + `externalId` pair is told. */
export const duplicateBeacon = () => refuse.conflict('externalId', 'must be unique within tag; a beacon with this tag and externalId exists')
