import {circleShape, isPosition, polygonShape, ringProblem, type Position, type Shape} from '../geofences/geometry.js'
import {CIRCLE_RADIUS, type GeofenceInput, ISOCHRONE_MODES, METADATA_MAX_KEYS} from '../geofences/input.js'
import {normaliseHours, type OperatingHours} from '../geofences/operating-hours.js'
import {numeric, PROTO_KEYS, TEXT_MAX} from '../validate.js'
import {cellValue} from './csv.js'
import {type Header, hoursCell} from './header.js'

/** Columns the fast path leaves to the schema: a row with any of them filled takes the schema's path. */
const SCHEMA_ONLY = ['address', 'placeId', 'metadata', 'operatingHours', 'userIds', 'ip', 'disableAfter', 'deleteAfter']
const MODES: ReadonlySet<string> = new Set(ISOCHRONE_MODES)
/** Distinct operating-hours cell sets remembered (files repeat a few opening times on every row). */
const HOURS_KEPT = 256

/**
 * The fast path of a geofence CSV row. The input schema (zod) builds a dozen objects a row; on a
 * 100,000-row import that garbage, not the work, set the time and the peak memory. A row that is
 * plainly well-formed (a circle or polygon with plain numbers, no column the schema alone reads)
 * becomes here the very `GeofenceInput` the schema gives, by the same geometry and hours functions.
 * Any other row — including every invalid one — gives undefined and goes through the schema, which
 * stays the authority: its failures name the column (test/sync/geofence-row.test.ts compares both).
 */
export function fastGeofenceRows(header: Header): (cells: string[]) => GeofenceInput | undefined {
  const {names} = header
  const at = (name: string) => names.indexOf(name)
  const description = at('description'), type = at('type'), tag = at('tag'), externalId = at('externalId')
  const coordinates = at('coordinates'), radius = at('radius'), mode = at('mode'), enabled = at('enabled')
  const userId = at('userId'), stopDetection = at('stopDetection')
  const dwell = at('dwellThreshold'), approaching = at('tripApproachingThreshold')
  const schemaOnly = SCHEMA_ONLY.map(at).filter((i) => i !== -1)
  const metadata: Array<[index: number, key: string]> = []
  const hours: Array<[index: number, day: string]> = []
  names.forEach((name, i) => {
    if (name.startsWith('metadata.')) metadata.push([i, name.slice(9)])
    else if (name.startsWith('operatingHours.')) hours.push([i, name.slice(15)])
  })
  // keys the schema treats apart (dropped, refused) or that JSON orders apart are left to it
  const plainKeys = metadata.every(([, key]) => key.length <= TEXT_MAX.metadataKey && !PROTO_KEYS.has(key))
  const hoursOf = hoursReader(hours)

  return (cells) => {
    if (!plainKeys || cells.length !== names.length || coordinates === -1) return undefined
    for (const i of schemaOnly) if (cells[i] !== '') return undefined
    const kind = cells[type]
    if (kind !== 'circle' && kind !== 'polygon') return undefined
    const text = cells[description]
    if (text === '' || text.length > TEXT_MAX.description || text.trim() === '') return undefined
    const tagText = cells[tag], externalIdText = cells[externalId]
    if (!idText(tagText) || !idText(externalIdText)) return undefined
    if (mode !== -1 && cells[mode] !== '' && !MODES.has(cells[mode])) return undefined
    const user = userId === -1 ? '' : cells[userId]
    if (user.length > TEXT_MAX.id) return undefined
    const on = enabled === -1 ? true : flag(cells[enabled], true)
    const stop = stopDetection === -1 ? undefined : flag(cells[stopDetection], undefined)
    if (on === null || stop === null) return undefined
    const dwellThreshold = dwell === -1 ? undefined : positive(cells[dwell])
    const tripApproachingThreshold = approaching === -1 ? undefined : positive(cells[approaching])
    if (dwellThreshold === null || tripApproachingThreshold === null) return undefined
    const r = radius === -1 ? undefined : number(cells[radius])
    if (r === null) return undefined

    const shape = kind === 'circle' ? circle(cells[coordinates], r) : polygon(cells[coordinates])
    if (!shape) return undefined
    let meta: Record<string, string | number | boolean> | undefined
    let keys = 0
    for (const [i, key] of metadata) {
      const cell = cells[i]
      if (cell === '') continue
      const value = cellValue(cell)
      if ((typeof value === 'string' && value.length > TEXT_MAX.metadataValue) || ++keys > METADATA_MAX_KEYS) return undefined
      ;(meta ??= {})[key] = value
    }
    const operatingHours = hoursOf(cells)
    if (operatingHours === null) return undefined

    return {
      description: text,
      type: kind,
      tag: tagText,
      externalId: externalIdText,
      shape,
      mode: undefined,
      metadata: meta,
      userId: user === '' ? undefined : user,
      userIds: undefined,
      ip: undefined,
      enabled: on,
      disableAfter: undefined,
      deleteAfter: undefined,
      stopDetection: stop,
      tripApproachingThreshold,
      dwellThreshold,
      operatingHours,
    }
  }
}

/** tag and externalId: required by the import (rows are matched on them), at most 256 characters. */
const idText = (cell: string) => cell !== '' && cell.length <= TEXT_MAX.id

/** A boolean cell as `bool()` reads it; `empty` when blank, null when it is not one. */
function flag<T>(cell: string, empty: T): boolean | T | null {
  if (cell === '') return empty
  if (cell === 'true' || cell === '1') return true
  if (cell === 'false' || cell === '0') return false
  return null
}

/** A number cell as `num()` reads it: undefined when blank, null when it is not a number. */
function number(cell: string): number | undefined | null {
  if (cell === '') return undefined
  const n = numeric(cell)
  return typeof n === 'number' ? n : null
}

function positive(cell: string): number | undefined | null {
  const n = number(cell)
  return n === undefined || n === null ? n : n > 0 ? n : null
}

/** JSON of an array, or undefined (the schema decides what other text means). */
function jsonArray(cell: string): unknown[] | undefined {
  if (cell[0] !== '[') return undefined
  try {
    const value: unknown = JSON.parse(cell)
    return Array.isArray(value) ? value : undefined
  } catch {
    return undefined
  }
}

function circle(cell: string, radius: number | undefined): Shape | undefined {
  const center = jsonArray(cell)
  if (!isPosition(center) || radius === undefined || radius < CIRCLE_RADIUS.min || radius > CIRCLE_RADIUS.max) return undefined
  return circleShape(center, radius)
}

function polygon(cell: string): Shape | undefined {
  let ring = jsonArray(cell)
  // GeoJSON polygon coordinates holding exactly one ring, as the schema unwraps them
  if (ring && ring.length === 1 && Array.isArray(ring[0]) && Array.isArray(ring[0][0])) ring = ring[0] as unknown[]
  if (ringProblem(ring) !== null) return undefined
  return polygonShape(ring as Position[])
}

/**
 * The operating hours of a row's `operatingHours.{day}` cells, normalised; undefined when all are
 * blank, null when the schema would refuse them. Results are remembered by the cells' text.
 */
function hoursReader(columns: Array<[index: number, day: string]>): (cells: string[]) => OperatingHours | undefined | null {
  const known = new Map<string, OperatingHours | null>()
  return (cells) => {
    if (!columns.length) return undefined
    let key = ''
    for (const [i] of columns) key += `${cells[i]}\u0001`
    if (key.length === columns.length) return undefined
    const remembered = known.get(key)
    if (remembered !== undefined) return remembered
    const given: Record<string, unknown> = {}
    for (const [i, day] of columns) if (cells[i] !== '') given[day] = hoursCell(cells[i])
    const result = normaliseHours(given)
    const hours = 'problem' in result ? null : result.hours
    if (known.size >= HOURS_KEPT) known.clear()
    known.set(key, hours)
    return hours
  }
}
