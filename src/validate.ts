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
  const result = schema.safeParse(input, {reportInput: true})
  if (result.success) return result.data
  const issue = result.error.issues[0]
  const param = issue.path.length ? issue.path.map(String).join('.') : 'body'
  throw refuse.invalid(param, listForOne(issue) ? ONCE : issue.message)
}

/** The statement for a list where one value is taken: a repeated query or form parameter, `a[]=`, a JSON array. */
export const ONCE = 'must be given once, as a single value (not repeated, not a list)'

const CONTAINERS: ReadonlySet<string> = new Set(['array', 'tuple', 'object', 'record', 'map', 'set'])

/**
 * Whether an issue is a list given where one value is taken. Query strings and forms turn a repeated
 * parameter into a list, which every scalar schema would refuse as not its type ("must be a number").
 */
function listForOne(issue: z.core.$ZodIssue): boolean {
  if (!Array.isArray(issue.input)) return false
  return issue.code === 'invalid_value' || (issue.code === 'invalid_type' && !CONTAINERS.has(issue.expected))
}

/**
 * How big any input may be, wherever it is read (JSON and form bodies, query strings, JSON given
 * as a string, CSV cells): docs/api.md lists them.
 */
export const INPUT_LIMITS = {
  /** Levels of arrays and objects (a polygon needs 4). */
  depth: 32,
  /** Characters in any one string or key; fields have lower limits of their own. */
  stringChars: 65_536,
  /** Values (strings, numbers, items) in one input. */
  values: 100_000,
}

/** Maximum lengths of string fields, in characters (docs/api.md). */
export const TEXT_MAX = {id: 256, description: 4096, metadataKey: 128, metadataValue: 1024}

/** Keys that name the prototype chain: refused rather than silently dropped. */
export const PROTO_KEYS: ReadonlySet<string> = new Set(['__proto__', 'constructor', 'prototype'])

/** What is wrong with an input's shape, if anything: the path it is at and a statement of what is valid. */
export interface InputProblem {
  path: string
  statement: string
  /** Too deep or too many values: the input as a whole is refused. */
  tooComplex?: boolean
}

/**
 * Checks a parsed input without recursion (so no nesting can overflow the stack): nesting depth,
 * number of values, string and key lengths, well-formed Unicode (no lone surrogates), finite
 * numbers, no prototype keys. The path of a problem is written as `a.b.0`, as `parse` names params.
 */
export function inputProblem(input: unknown, root = 'body'): InputProblem | null {
  const stack: Array<[unknown, string, number]> = [[input, '', 0]]
  let values = 0
  const at = (path: string) => path || root
  while (stack.length) {
    const [value, path, depth] = stack.pop()!
    if (++values > INPUT_LIMITS.values) return {path: root, statement: `must hold at most ${INPUT_LIMITS.values.toLocaleString('en-US')} values`, tooComplex: true}
    if (typeof value === 'string') {
      const problem = textProblem(value)
      if (problem) return {path: at(path), statement: problem}
    } else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return {path: at(path), statement: 'must be a finite number'}
    } else if (value !== null && typeof value === 'object') {
      if (depth >= INPUT_LIMITS.depth) return {path: root, statement: `must be nested at most ${INPUT_LIMITS.depth} levels deep`, tooComplex: true}
      for (const key of Object.keys(value)) {
        const keyPath = path ? `${path}.${key}` : key
        if (PROTO_KEYS.has(key)) return {path: at(keyPath), statement: `"${key}" is not accepted as a key`}
        const problem = textProblem(key)
        if (problem) return {path: at(path), statement: `keys ${problem}`}
        stack.push([(value as Record<string, unknown>)[key], keyPath, depth + 1])
      }
    }
  }
  return null
}

// String.prototype.isWellFormed: Node 20+, not yet in the TypeScript lib this project targets
type WellFormed = string & {isWellFormed(): boolean}

function textProblem(text: string): string | null {
  if (text.length > INPUT_LIMITS.stringChars) return `must be at most ${INPUT_LIMITS.stringChars.toLocaleString('en-US')} characters`
  if (!(text as WellFormed).isWellFormed()) return 'must be well-formed Unicode (no lone surrogates)'
  return null
}

/** A decimal number as people and SDKs write it: `12`, `-0.5`, `1e3`; not `0x10`, `1_000`, `Infinity` or padded. */
const DECIMAL = /^[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?$/

/** The number a string holds when it is a finite decimal (as JSON writes numbers), else NaN: every string read as a number is read by this. */
export function decimal(text: string): number {
  if (!DECIMAL.test(text)) return NaN
  const n = Number(text)
  return Number.isFinite(n) ? n : NaN
}

/** A string holding a finite decimal number becomes that number; anything else passes through. */
export const numeric = (value: unknown) => {
  if (typeof value !== 'string') return value
  const n = decimal(value)
  return Number.isNaN(n) ? value : n
}

/** JSON given as a string (form bodies, CSV cells) is parsed when it is within the input limits; anything else passes through. */
export function jsonText(value: unknown): unknown {
  if (typeof value !== 'string' || !/^\s*[[{]/.test(value)) return value
  let parsed: unknown
  try {
    parsed = JSON.parse(value)
  } catch {
    return value
  }
  return inputProblem(parsed) ? value : parsed
}

/** A string of at most `max` characters; numbers are taken as their decimal text (SDKs send ids as numbers). */
export const text = (max: number) =>
  z.preprocess((v) => (typeof v === 'number' && Number.isFinite(v) ? String(v) : v), z.string().max(max))

/** A number; strings that hold one are accepted. */
export const num = () => z.preprocess(numeric, z.number())

/** A number in [min, max], reported as the spec words it: `range -90 to 90`. */
export const range = (min: number, max: number) =>
  z.preprocess(numeric, z.number().refine((n) => n >= min && n <= max, {message: `range ${min} to ${max}`}))

export const int = (min: number, max: number) =>
  z.preprocess(numeric, z.number({error: `integer from ${min} to ${max}`}).refine((n) => Number.isInteger(n) && n >= min && n <= max, {message: `integer from ${min} to ${max}`}))

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

/**
 * ISO 8601 as the spec means it: a calendar date, optionally with a time (`T` or a space) to the
 * minute, second or fraction, and `Z` or an offset. Without an offset the time is UTC.
 */
const ISO_8601 = /^(\d{4})-(\d\d)-(\d\d)(?:[T ](\d\d):(\d\d)(?::(\d\d)(\.\d{1,9})?)?(Z|[+-]\d\d:?\d\d)?)?$/

/** The instant an ISO 8601 string names, or NaN when it is not one or names no real date (`2024-02-31`). */
export function isoMillis(value: string): number {
  const m = ISO_8601.exec(value)
  if (!m) return NaN
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', zone = 'Z'] = m
  const year = Number(y), month = Number(mo), day = Number(d), hour = Number(h), minute = Number(mi), second = Number(s)
  if (month < 1 || month > 12 || day < 1 || day > new Date(Date.UTC(year, month, 0)).getUTCDate()) return NaN
  if (hour > 23 || minute > 59 || second > 59) return NaN
  let offset = 0
  if (zone !== 'Z') {
    const sign = zone[0] === '-' ? -1 : 1
    const digits = zone.slice(1).replace(':', '')
    const oh = Number(digits.slice(0, 2)), om = Number(digits.slice(2))
    if (oh > 23 || om > 59) return NaN
    offset = sign * (oh * 60 + om)
  }
  const ms = fraction ? Math.floor(Number(`0${fraction}`) * 1000) : 0
  const utc = new Date(0)
  utc.setUTCFullYear(year, month - 1, day)
  utc.setUTCHours(hour, minute - offset, second, ms)
  return utc.getTime()
}

/** A Date or an ISO 8601 string (`2024-05-01`, `2024-05-01T12:00:00Z`, with an offset or fraction), normalised to ISO 8601 UTC with milliseconds. */
export const datetime = () =>
  z.preprocess(
    (value) => {
      if (value instanceof Date) return Number.isNaN(value.getTime()) ? value : value.toISOString()
      if (typeof value !== 'string') return value
      const ms = isoMillis(value)
      return Number.isNaN(ms) ? NOT_A_DATE : new Date(ms).toISOString()
    },
    z.string({error: DATE_STATEMENT}).refine((s) => s !== NOT_A_DATE, {message: DATE_STATEMENT}),
  )

const NOT_A_DATE = '\u0000not a date'
const DATE_STATEMENT = 'must be a date or an ISO 8601 date string (2024-05-01T12:00:00Z) naming a real date'

/** `latitude,longitude` (the spec's string form) → `[lng, lat]` (the code's form). */
export const latLng = () =>
  z.preprocess(
    (value, ctx) => {
      // a query's repeated `near=` or `coordinates[]=` (a JSON body may give the [lng, lat] numbers)
      if (Array.isArray(value) && value.some((v) => typeof v === 'string')) {
        ctx.addIssue({code: 'custom', message: ONCE})
        return z.NEVER
      }
      if (typeof value !== 'string') return value
      const parts = value.split(',').map((s) => decimal(s.trim()))
      if (parts.length !== 2 || parts.some(Number.isNaN)) return value
      return [parts[1], parts[0]]
    },
    z.tuple([z.number(), z.number()], {error: 'must be "latitude,longitude"'})
      .refine(([lng, lat]) => lat >= -90 && lat <= 90 && lng >= -180 && lng <= 180, {
        message: 'must be "latitude,longitude" with latitude -90 to 90 and longitude -180 to 180',
      }),
  )

/**
 * A metadata dictionary: at most `maxKeys` keys of up to 128 characters, values string (up to
 * 1,024 characters), finite number or boolean. Form bodies and SDKs may send it as a JSON string.
 */
export const metadata = (maxKeys: number) =>
  z.preprocess(
    jsonText,
    z.record(
      z.string().max(TEXT_MAX.metadataKey, {message: `keys up to ${TEXT_MAX.metadataKey} characters`}),
      z.union([z.string().max(TEXT_MAX.metadataValue), z.number(), z.boolean()], {error: METADATA_VALUE}),
      {error: 'must be a dictionary of string, number or boolean values'},
    ).refine((m) => Object.keys(m).length <= maxKeys, {message: `up to ${maxKeys} keys`}),
  )

const METADATA_VALUE = `must be a string (up to ${TEXT_MAX.metadataValue} characters), a number or a boolean`

/** `metadata[key]=value` filters from the query (qs gives an object); anything else is ignored (compat). */
export function metadataFilters(value: unknown): Record<string, string> {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return {}
  const out: Record<string, string> = {}
  for (const [key, v] of Object.entries(value)) if (typeof v === 'string') out[key] = v
  return out
}

/** Whether stored metadata meets every `metadata[key]=value` filter: the text, or the number or boolean it reads as. */
export function matchesMetadata(stored: Record<string, unknown> | null | undefined, filters: ReadonlyArray<[string, string]>): boolean {
  return filters.every(([key, value]) => {
    if (!stored || !Object.hasOwn(stored, key)) return false
    const s = stored[key]
    if (typeof s === 'string') return s === value
    if (typeof s === 'number') return numeric(value) === s
    if (typeof s === 'boolean') return value === String(s)
    return false
  })
}
