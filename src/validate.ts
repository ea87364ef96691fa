import {z} from 'zod'
import {refuse} from './errors.js'
import './zod-messages.js'

/**
 * Input validation on zod, for the API, the CLI and file imports alike. Schemas state what is
 * valid; `parse` turns the first issue into an `invalid_parameter` refusal whose `param` is the
 * field path as the caller wrote it (`metadata.color`) and whose message is `<param>: <statement>`.
 * Builders here also accept the strings that query strings, form bodies and CSV cells carry
 * (`"12.5"`, `"true"`, `"a,b|c"`).
 */
export function parse<S extends z.ZodType>(schema: S, input: unknown): z.output<S> {
  const result = schema.safeParse(input)
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const param = issue.path.length ? issue.path.map(String).join('.') : 'body'
  throw refuse.invalid(param, issue.message)
}

/** A string holding a finite number becomes that number; anything else passes through. */
export const numeric = (value: unknown) =>
  typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)) ? Number(value) : value

/** JSON given as a string (form bodies, CSV cells) is parsed; anything else passes through. */
export function jsonText(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value
  try {
    return JSON.parse(value)
  } catch {
    return value
  }
}

/** A number; strings that hold one are accepted. */
export const num = () => z.preprocess(numeric, z.number())

/** A number in [min, max], reported as the spec words it: `range -90 to 90`. */
export const range = (min: number, max: number) =>
  z.preprocess(numeric, z.number().refine((n) => n >= min && n <= max, {message: `range ${min} to ${max}`}))

export const int = (min: number, max: number) =>
  z.preprocess(numeric, z.number().refine((n) => Number.isInteger(n) && n >= min && n <= max, {message: `integer from ${min} to ${max}`}))

/** true/false, also as the strings "true"/"false"/"1"/"0". */
export const bool = () =>
  z.preprocess((value) => {
    if (value === 'true' || value === '1') return true
    if (value === 'false' || value === '0') return false
    return value
  }, z.boolean())

/** A list from an array or a comma/pipe separated string; empty items dropped. */
export const list = <T extends z.ZodType>(item: T) =>
  z.preprocess((value) => {
    if (typeof value === 'string') return value.split(/[,|]/).map((s) => s.trim()).filter(Boolean)
    return value
  }, z.array(item))

/** A date or ISO 8601 string, normalised to ISO 8601 UTC with milliseconds. */
export const datetime = () =>
  z.preprocess(
    (value) => {
      if (value instanceof Date) return value.toISOString()
      if (typeof value === 'string' && value.trim() !== '') {
        const ms = Date.parse(value)
        return Number.isNaN(ms) ? value : new Date(ms).toISOString()
      }
      return value
    },
    z.string().refine((s) => /^\d{4}-\d\d-\d\dT/.test(s), {message: 'must be a date or an ISO 8601 date string'}),
  )

/** `latitude,longitude` (the spec's string form) → `[lng, lat]` (the code's form). */
export const latLng = () =>
  z.preprocess(
    (value) => {
      if (typeof value !== 'string') return value
      const parts = value.split(',').map((s) => s.trim())
      if (parts.length !== 2 || parts.some((p) => p === '' || !Number.isFinite(Number(p)))) return value
      return [Number(parts[1]), Number(parts[0])]
    },
    z.tuple([z.number(), z.number()], {error: 'must be "latitude,longitude"'})
      .refine(([lng, lat]) => lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180, {
        message: 'must be "latitude,longitude" with latitude -90 to 90 and longitude -180 to 180',
      }),
  )

/**
 * A metadata dictionary: at most `maxKeys` keys, values string, number or boolean. Form bodies
 * and SDKs may send it as a JSON string.
 */
export const metadata = (maxKeys: number) =>
  z.preprocess(
    jsonText,
    z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]), {error: 'must be a dictionary of string, number or boolean values'})
      .refine((m) => Object.keys(m).length <= maxKeys, {message: `up to ${maxKeys} keys`}),
  )

/** `metadata[key]=value` filters from the query (qs gives an object); anything else is ignored (compat). */
export function metadataFilters(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  const out: Record<string, string> = {}
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v
  return out
}
