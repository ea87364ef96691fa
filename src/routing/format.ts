import {type Units, distanceOf} from '../trips/route.js'
import type {Line} from './path.js'

export type GeometryKind = 'none' | 'linestring' | 'polyline5' | 'polyline6'

/** A duration as the routing endpoints show it: `value` in minutes, `text` such as "1 hour 5 mins". */
export function durationOf(deciseconds: number): {value: number; text: string} {
  const minutes = deciseconds / 600
  const total = Math.round(minutes)
  const h = Math.floor(total / 60), m = total % 60
  const text = h ? `${h} hour${h > 1 ? 's' : ''}${m ? ` ${m} min${m > 1 ? 's' : ''}` : ''}` : `${m} min${m === 1 ? '' : 's'}`
  return {value: Math.round(minutes * 100) / 100, text}
}

export {distanceOf, type Units}

export type Geometry = {polyline: string} | {linestring: {type: 'LineString'; coordinates: [number, number][]}}

/**
 * Points from..to (inclusive) of `line` in the requested encoding (DECISIONS: `{polyline}` or
 * `{linestring}`); undefined for none. `repeat` adds the last point once more (an arrival's
 * two-point line).
 */
export function geometryOf(line: Line, kind: GeometryKind, from = 0, to = line.n - 1, repeat = false): Geometry | undefined {
  if (kind === 'none') return undefined
  if (kind === 'linestring') {
    const coordinates: [number, number][] = []
    for (let i = from; i <= to; i++) coordinates.push([round6(line.x(i)), round6(line.y(i))])
    if (repeat && to >= from) coordinates.push([round6(line.x(to)), round6(line.y(to))])
    return {linestring: {type: 'LineString', coordinates}}
  }
  const w = writer.start(kind === 'polyline5' ? 1e5 : 1e6)
  for (let i = from; i <= to; i++) w.add(line.y(i), line.x(i))
  if (repeat && to >= from) w.add(line.y(to), line.x(to))
  return {polyline: w.finish()}
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6

/**
 * Google's encoded polyline, written into one reused byte buffer (the output @mapbox/polyline gives,
 * without a string per character or a flipped copy of the points).
 */
class PolylineWriter {
  private bytes = new Uint8Array(4096)
  private n = 0
  private factor = 1e6
  private lat = 0
  private lng = 0

  start(factor: number): this {
    this.factor = factor
    this.n = 0
    this.lat = 0
    this.lng = 0
    return this
  }

  add(lat: number, lng: number): void {
    if (this.n + 24 > this.bytes.length) {
      const more = new Uint8Array(2 * this.bytes.length)
      more.set(this.bytes)
      this.bytes = more
    }
    const y = pyRound(lat * this.factor), x = pyRound(lng * this.factor)
    this.value(y - this.lat)
    this.value(x - this.lng)
    this.lat = y
    this.lng = x
  }

  finish(): string {
    return Buffer.from(this.bytes.buffer, 0, this.n).toString('latin1')
  }

  private value(delta: number): void {
    let v = delta * 2
    if (v < 0) v = -v - 1
    while (v >= 0x20) {
      this.bytes[this.n++] = (0x20 | (v & 0x1f)) + 63
      v /= 32
    }
    this.bytes[this.n++] = (v | 0) + 63
  }
}

/** Python 2's round (half away from zero), as @mapbox/polyline rounds. */
const pyRound = (v: number) => Math.floor(Math.abs(v) + 0.5) * (v >= 0 ? 1 : -1)

const writer = new PolylineWriter()
