import {parse as parseCsv} from 'csv-parse/sync'
import {refuse} from '../errors.js'

/** One point of a recorded trace: where, how exact, when, and the device's state. */
export interface TracePoint {
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
const flag = (v: string | undefined) => (v === undefined ? undefined : /^(true|1|yes)$/i.test(v.trim()))

/**
 * A trace from CSV (header row; `latitude`/`lat`, `longitude`/`lng`/`lon`, optional `accuracy`,
 * `time`/`timestamp`/`updatedAt` (ISO 8601 or epoch seconds), `stopped`, `foreground`) or GPX
 * (`trkpt`/`wpt`/`rtept` with `lat`, `lon` and `<time>`). Refused with the line it cannot read.
 */
export function parseTrace(text: string, format: 'csv' | 'gpx'): TracePoint[] {
  return format === 'gpx' ? parseGpx(text) : parseTraceCsv(text)
}

function parseTraceCsv(text: string): TracePoint[] {
  const rows = parseCsv(text, {columns: (h: string[]) => h.map((c) => c.trim().toLowerCase()), skip_empty_lines: true, trim: true}) as Array<Record<string, string>>
  return rows.map((row, i) => {
    const lat = Number(pick(row, ['latitude', 'lat']))
    const lng = Number(pick(row, ['longitude', 'lng', 'lon']))
    if (!Number.isFinite(lat) || lat < -90 || lat > 90 || !Number.isFinite(lng) || lng < -180 || lng > 180) {
      throw refuse.invalid(`line ${i + 2}`, 'latitude -90 to 90 and longitude -180 to 180 in columns latitude (lat) and longitude (lng, lon)')
    }
    const accuracy = pick(row, ['accuracy'])
    const time = pick(row, ['time', 'timestamp', 'updatedat'])
    return {lat, lng, accuracy: accuracy === undefined ? undefined : Number(accuracy), at: time === undefined ? undefined : timeOf(time, `line ${i + 2}`),
      stopped: flag(pick(row, ['stopped'])), foreground: flag(pick(row, ['foreground']))}
  })
}

function parseGpx(text: string): TracePoint[] {
  const points: TracePoint[] = []
  for (const m of text.matchAll(/<(trkpt|wpt|rtept)\b([^>]*?)(\/>|>([\s\S]*?)<\/\1>)/g)) {
    const lat = Number(/\blat="([^"]+)"/.exec(m[2])?.[1])
    const lng = Number(/\blon="([^"]+)"/.exec(m[2])?.[1])
    if (!Number.isFinite(lat) || !Number.isFinite(lng)) throw refuse.invalid(`point ${points.length + 1}`, 'lat and lon attributes')
    const time = /<time>([^<]+)<\/time>/.exec(m[4] ?? '')?.[1]
    const hdop = /<hdop>([^<]+)<\/hdop>/.exec(m[4] ?? '')?.[1]
    points.push({lat, lng, at: time ? timeOf(time, `point ${points.length + 1}`) : undefined, accuracy: hdop ? Number(hdop) * 5 : undefined})
  }
  return points
}

function timeOf(text: string, where: string): Date {
  const ms = /^\d+(\.\d+)?$/.test(text) ? Number(text) * 1000 : Date.parse(text)
  if (!Number.isFinite(ms)) throw refuse.invalid(where, 'time as ISO 8601 or epoch seconds')
  return new Date(ms)
}
