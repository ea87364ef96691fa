import {z} from 'zod'
import {refuse} from '../errors.js'
import {pageSchema} from '../paging-input.js'
import {bool, jsonText, metadata, numeric, TEXT_MAX} from '../validate.js'
import {ID_FORMS, type IdForm, NAMESPACE_ID, TYPE_IDS, UUID_ID} from './ids.js'

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

/**
 * The identifiers of the beacon's type: required, well-formed, and turned into their stored form
 * (ids.ts). Those of the other type are not checked: they are dropped (columns() in store.ts).
 */
function withTypeIds<T extends z.ZodObject>(schema: T) {
  return schema.transform((input: any, ctx) => {
    const out = {...input}
    for (const key of TYPE_IDS[input.type as keyof typeof TYPE_IDS]) {
      const canonical = input[key] === undefined ? undefined : ID_FORMS[key].canonical(input[key])
      if (canonical !== undefined) out[key] = canonical
      else ctx.addIssue({code: 'custom', path: [key], message: input[key] === undefined ? `required for type ${input.type}` : `must be ${ID_FORMS[key].statement}`})
    }
    return out as z.output<T>
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

/** A list of at most RANGED_IDS_MAX identifiers of one form, stored in that form, each once. */
const rangedIds = (form: IdForm) => z.array(z.string()
  .refine((id) => form.canonical(id) !== undefined, `each must be ${form.statement}`)
  .transform((id) => form.canonical(id)!))
  .max(RANGED_IDS_MAX).transform((ids) => [...new Set(ids)])

/** `beacons.uuids`: iBeacon proximity UUIDs. */
export const rangedUuids = rangedIds(UUID_ID)
/** `beacons.uids`: Eddystone-UID namespaces. */
export const rangedUids = rangedIds(NAMESPACE_ID)

/** What a create or update that would repeat a `tag` + `externalId` pair is told. */
export const duplicateBeacon = () => refuse.conflict('externalId', 'must be unique within tag; a beacon with this tag and externalId exists')
