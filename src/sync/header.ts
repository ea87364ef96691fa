import type {z} from 'zod'
import {dayKey} from '../geofences/operating-hours.js'
import {cellValue, type RowFailure} from './csv.js'

/** What a CSV format allows: the spec's columns, which must be present, and the expanded dictionary columns. */
export interface CsvFormat {
  columns: readonly string[]
  /** Columns the header must have. */
  required: readonly string[]
  /** The header must have at least one of these. */
  oneOf?: readonly string[]
  /** `operatingHours.{day}` columns allowed. */
  hours: boolean
}

/** A parsed header: turns each row's cells into the object the domain's input schema takes. */
export interface Header {
  names: string[]
  toInput(cells: string[]): Record<string, unknown>
  /** The header column an input schema issue path points at. */
  columnOf(path: ReadonlyArray<PropertyKey>): string
}

/**
 * Reads the header row. Column names match the spec's case-insensitively; `metadata.{key}` columns
 * (the key kept as written) cannot be combined with `metadata`, nor `operatingHours.{day}` (full or
 * three-letter day name, any case) with `operatingHours`. Unknown and repeated columns are refused so
 * a misspelt header does not silently drop a field.
 */
export function readHeader(format: CsvFormat, cells: string[]): Header | RowFailure[] {
  const failures: RowFailure[] = []
  const fail = (column: string, reason: string) => failures.push({row: 1, column, reason})
  const canonical = new Map(format.columns.map((c) => [c.toLowerCase(), c]))
  const names: string[] = []
  const seen = new Set<string>()
  const days = new Set<string>()
  cells.forEach((raw, i) => {
    const lower = raw.toLowerCase()
    let name = canonical.get(lower)
    if (!name && lower.startsWith('metadata.') && raw.length > 9) name = `metadata.${raw.slice(9)}`
    if (!name && lower.startsWith('operatinghours.') && format.hours) {
      const day = dayKey(raw.slice(15))
      if (!day) fail(raw, 'must be operatingHours.{day} with a full or three-letter day name (operatingHours.monday or operatingHours.mon)')
      else if (days.has(day)) fail(raw, `must name each day once (${day} is named twice)`)
      else days.add(day)
      name = `operatingHours.${raw.slice(15)}`
    }
    if (!name) {
      if (raw === '') fail(`column ${i + 1}`, 'must have a name')
      else fail(raw, `is not a column of this format; columns: ${format.columns.join(', ')}${format.hours ? ', metadata.{key}, operatingHours.{day}' : ', metadata.{key}'}`)
      name = raw
    } else if (seen.has(name.toLowerCase())) {
      fail(raw, 'must appear once in the header')
    }
    seen.add(name.toLowerCase())
    names.push(name)
  })
  const keyed = (prefix: string) => names.some((n) => n.startsWith(prefix))
  if (keyed('metadata.') && seen.has('metadata')) fail('metadata', 'cannot be combined with metadata.{key} columns: use one or the other')
  if (keyed('operatingHours.') && seen.has('operatinghours')) fail('operatingHours', 'cannot be combined with operatingHours.{day} columns: use one or the other')
  for (const column of format.required) if (!seen.has(column.toLowerCase())) fail(column, 'required column is missing from the header')
  if (format.oneOf && !format.oneOf.some((c) => seen.has(c.toLowerCase()))) fail(format.oneOf[0], `the header must have one of the columns ${format.oneOf.join(', ')}`)
  if (failures.length) return failures

  const columnSet = new Set(names)
  return {
    names,
    toInput(cells) {
      const input: Record<string, unknown> = {}
      let metadata: Record<string, unknown> | undefined
      let hours: Record<string, unknown> | undefined
      for (let i = 0; i < names.length; i++) {
        const cell = cells[i]
        if (cell === undefined || cell === '') continue
        const name = names[i]
        if (name.startsWith('metadata.')) (metadata ??= {})[name.slice(9)] = cellValue(cell)
        else if (name.startsWith('operatingHours.')) (hours ??= {})[name.slice(15)] = hoursCell(cell)
        else input[name] = cell
      }
      if (metadata) input.metadata = metadata
      if (hours) input.operatingHours = hours
      return input
    },
    columnOf(path) {
      const [first, second] = path.map(String)
      if (second !== undefined && columnSet.has(`${first}.${second}`)) return `${first}.${second}`
      return first ?? 'row'
    },
  }
}

/** An `operatingHours.{day}` cell: JSON pairs (`[["09:00","17:00"]]`) or `09:00-17:00`, several separated by `,` or `;`. */
export function hoursCell(cell: string): unknown {
  if (cell.startsWith('[')) {
    try {
      return JSON.parse(cell)
    } catch {
      return cell
    }
  }
  const pairs = cell.split(/[,;]/).map((part) => part.split('-').map((t) => t.trim()))
  return pairs.every((p) => p.length === 2) ? pairs : cell
}

/** A row's cells through a domain input schema: the value, or every issue as a failure naming its column. */
export function rowInput<S extends z.ZodType>(schema: S, header: Header, row: number, cells: string[]): {value: z.output<S>} | {failures: RowFailure[]} {
  if (cells.length !== header.names.length) {
    return {failures: [{row, reason: `must have ${header.names.length} cells like the header (has ${cells.length})`}]}
  }
  const result = schema.safeParse(header.toInput(cells))
  if (result.success) return {value: result.data}
  return {failures: result.error.issues.map((issue) => ({row, column: header.columnOf(issue.path), reason: issue.message}))}
}
