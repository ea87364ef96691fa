import {parse as parseCsv} from 'csv-parse/sync'
import {refuse} from '../errors.js'
import {isPosition} from '../geofences/geometry.js'
import {decimal} from '../validate.js'
import {ACCURACY_MAX_M, EARLIEST_UPDATE} from './input.js'

/** One point of a recorded trace: where, how exact, when, and the device's state. */
export interface TracePoint {
  /** Where it is in the file, for refusals: `line N` (CSV) or `point N` (GPX). */
  where: string
  lat: number
  lng: number
  accuracy?: number
  at?: Date
  stopped?: boolean
  foreground?: boolean
}

const pick = (row: Record<string, string>, names: string[]) => {
  for (const name of names) if (row[name] !== undefined && row[name] !== '') return row[name]
  return undefined
}
function flag(v: string | undefined, name: string, where: string): boolean | undefined {
  if (v === undefined) return undefined
  if (/^(true|1|yes)$/i.test(v)) return true
  if (/^(false|0|no)$/i.test(v)) return false
  throw refuse.invalid(where, `${name} true or false (1/0, yes/no)`)
}

/** An accuracy in metres as track takes it: a number greater than 0, at most ACCURACY_MAX_M. */
function accuracyOf(v: number | undefined, where: string): number | undefined {
  if (v === undefined) return undefined
  if (!(v > 0 && v <= ACCURACY_MAX_M)) throw refuse.invalid(where, `accuracy a number greater than 0 and at most ${ACCURACY_MAX_M} (metres)`)
  return v
}

/**
 * A trace from CSV (header row; `latitude`/`lat`, `longitude`/`lng`/`lon`, optional `accuracy`,
 * `time`/`timestamp`/`updatedAt` (ISO 8601 or epoch seconds), `stopped`, `foreground`) or GPX
 * (`trkpt`/`wpt`/`rtept` with `lat`, `lon` and `<time>`). Refused with the line it cannot read.
 */
export function parseTrace(text: string, format: 'csv' | 'gpx'): TracePoint[] {
  return format === 'gpx' ? parseGpx(text) : parseTraceCsv(text)
}

function parseTraceCsv(text: string): TracePoint[] {
  let rows: Array<Record<string, string>>
  try {
    rows = parseCsv(text, {columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, trim: true})
  } catch (error) {
    throw csvRefusal(error as CsvError)
  }
  return rows.map((row, i) => {
    const where = `line ${i + 2}`
    const lat = decimal(pick(row, ['latitude', 'lat']) ?? '')
    const lng = decimal(pick(row, ['longitude', 'lng', 'lon']) ?? '')
    if (!isPosition([lng, lat])) throw refuse.invalid(where, 'latitude -90 to 90 and longitude -180 to 180 in columns latitude (lat) and longitude (lng, lon)')
    const accuracy = pick(row, ['accuracy'])
    const time = pick(row, ['time', 'timestamp', 'updatedat'])
    return {where, lat, lng, accuracy: accuracyOf(accuracy === undefined ? undefined : decimal(accuracy), where), at: time === undefined ? undefined : timeOf(time, where),
      stopped: flag(pick(row, ['stopped']), 'stopped', where), foreground: flag(pick(row, ['foreground']), 'foreground', where)}
  })
}

/** csv-parse's error (a row with more or fewer cells than the header, an unclosed quote) as a refusal naming the line. */
function csvRefusal(error: CsvError) {
  const where = error.lines ? `line ${error.lines}` : 'trace'
  if (error.code === 'CSV_RECORD_INCONSISTENT_COLUMNS' && error.record && error.columns) {
    return refuse.invalid(where, `${error.columns.length} cells like the header (has ${error.record.length})`)
  }
  return refuse.invalid(where, `valid CSV (${error.message})`)
}

type CsvError = Error & {code?: string; lines?: number; record?: unknown[]; columns?: unknown[]}

function parseGpx(text: string): TracePoint[] {
  const points: TracePoint[] = []
  for (const m of text.matchAll(/<(trkpt|wpt|rtept)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1>)/g)) {
    const where = `point ${points.length + 1}`
    const lat = decimal(/\blat="([^"]+)"/.exec(m[2])?.[1] ?? '')
    const lng = decimal(/\blon="([^"]+)"/.exec(m[2])?.[1] ?? '')
    if (!isPosition([lng, lat])) throw refuse.invalid(where, 'lat -90 to 90 and lon -180 to 180 attributes')
    const time = /<time>([^<]+)<\/time>/.exec(m[4] ?? '')?.[1]
    const hdop = /<hdop>([^<]+)<\/hdop>/.exec(m[4] ?? '')?.[1]
    points.push({where, lat, lng, at: time ? timeOf(time, where) : undefined, accuracy: accuracyOf(hdop ? decimal(hdop) * 5 : undefined, where)})
  }
  return points
}

function timeOf(text: string, where: string): Date {
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text)
  if (!Number.isFinite(ms)) throw refuse.invalid(where, 'time as ISO 8601 or epoch seconds')
  return new Date(ms)
}

/**
 * Each point's time, as track's rule for historical updates would keep them (DECISIONS: in
 * chronological order, none from the future): a trace gives every point a time or none; with none,
 * the points are a second apart, the last one `now`.
 */
export function traceTimes(points: readonly TracePoint[], now: Date): Date[] {
  const timed = points.filter((p) => p.at).length
  if (timed === 0) return points.map((_, i) => new Date(now.getTime() - (points.length - 1 - i) * 1000))
  return points.map((p, i) => {
    if (!p.at) throw refuse.invalid(p.where, 'time missing: give every point a time, or none')
    if (i > 0 && p.at < points[i - 1].at!) throw refuse.invalid(p.where, `time before the one of ${points[i - 1].where} (a trace is replayed in order)`)
    if (p.at > now) throw refuse.invalid(p.where, 'time in the future')
    if (p.at.getTime() < Date.parse(EARLIEST_UPDATE)) throw refuse.invalid(p.where, `time before ${EARLIEST_UPDATE.slice(0, 10)} (a clock never set)`)
    return p.at
  })
}
