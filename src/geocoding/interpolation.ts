import type Database from 'better-sqlite3'
import {haversine} from '../osm/geom.js'
import {fold, numberValue} from './normalize.js'

interface Line {kind: string; start: number; end: number; coords: number[][]}

/** How far from the street's own point an interpolation line of the same street name may lie (same street, not a namesake in another town). */
const SAME_STREET_M = 3000

/**
 * The region's `addr:interpolation` lines that know both end numbers (import: from their end nodes),
 * by street: a house number between the ends (of the line's parity) lies that far along the line.
 */
export class InterpolationLines {
  private readonly byStreet = new Map<string, Line[]>()

  constructor(db: Database.Database) {
    // maps imported before interpolation lines kept their end numbers have none
    if (!db.prepare("SELECT 1 FROM pragma_table_info('interpolations') WHERE name = 'start_number'").get()) return
    const rows = db.prepare('SELECT interpolation, street, start_number, end_number, geometry FROM interpolations WHERE street IS NOT NULL AND start_number IS NOT NULL AND end_number IS NOT NULL').all() as
      {interpolation: string; street: string; start_number: string; end_number: string; geometry: string}[]
    for (const r of rows) {
      const start = numberValue(r.start_number), end = numberValue(r.end_number)
      if (!Number.isFinite(start) || !Number.isFinite(end) || start === end) continue
      const key = fold(r.street)
      const list = this.byStreet.get(key) ?? []
      list.push({kind: r.interpolation, start, end, coords: (JSON.parse(r.geometry) as {coordinates: number[][]}).coordinates})
      this.byStreet.set(key, list)
    }
  }

  /** [lon, lat] of `number` on a line of `street` near `near`, or null. */
  locate(street: string, number: number, near: [number, number]): [number, number] | null {
    for (const line of this.byStreet.get(fold(street)) ?? []) {
      const lo = Math.min(line.start, line.end), hi = Math.max(line.start, line.end)
      if (number < lo || number > hi) continue
      if ((line.kind === 'even' && number % 2 !== 0) || (line.kind === 'odd' && number % 2 !== 1) || line.kind === 'alphabetic') continue
      if (haversine(near[0], near[1], line.coords[0][0], line.coords[0][1]) > SAME_STREET_M) continue
      return along(line.coords, (number - line.start) / (line.end - line.start))
    }
    return null
  }
}

/** The point at fraction `f` of a line's length. */
function along(coords: number[][], f: number): [number, number] {
  const lengths = [0]
  for (let i = 1; i < coords.length; i++) lengths.push(lengths[i - 1] + haversine(coords[i - 1][0], coords[i - 1][1], coords[i][0], coords[i][1]))
  const target = f * lengths[lengths.length - 1]
  for (let i = 1; i < coords.length; i++) {
    if (lengths[i] < target) continue
    const seg = lengths[i] - lengths[i - 1]
    const t = seg ? (target - lengths[i - 1]) / seg : 0
    return [coords[i - 1][0] + (coords[i][0] - coords[i - 1][0]) * t, coords[i - 1][1] + (coords[i][1] - coords[i - 1][1]) * t]
  }
  return coords[coords.length - 1] as [number, number]
}
