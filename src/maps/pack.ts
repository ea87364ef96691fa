import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import type {Sections} from '../map/blob.js'
import {decodeParts} from './shapes.js'
import {BANDS} from './stage.js'

/** The drawing blob: `maps.bin`, kind version 1. */
export const MAPS_BLOB = 'maps'
export const MAPS_BLOB_VERSION = 1

/** Per-shape string columns, in this order, in section `text` (string ids, 0 for null). */
export const enum Text {Class = 0, Name = 1, Names = 2, Ref = 3}
export const TEXT_COLUMNS = 4

/**
 * The drawing data of a region as flat arrays (kdbush/flatbush style), from the stage's
 * `maps_shapes` rows: shapes ordered by zoom band, then by id (paint order within a layer).
 *
 *   bands          Uint32  [first, end) shape of each band of BANDS
 *   index<b>       flatbush over the band's shape boxes (lon/lat degrees); item i = shape first + i
 *   layer, flags, minzoom  Uint8 per shape
 *   text           Uint32, TEXT_COLUMNS string ids per shape
 *   strings        UTF-8 of every distinct string, `stringEnds` Uint32 its end offsets (id 0 is null)
 *   parts          Uint32 per shape + 1: its first entry in `counts` (points per part)
 *   first          Uint32 per shape + 1: its first value in `coords`
 *   coords         Int32 lon, lat pairs in 1e-7 degrees
 *   areas          Float64 data-area boxes; `mask` Int32 mask cells (x, y), empty section: no mask
 */
export function packShapes(db: Database.Database): Sections {
  const n = db.prepare('SELECT count(*) FROM maps_shapes').pluck().get() as number
  const hasNames = (db.prepare('PRAGMA table_info(maps_shapes)').all() as {name: string}[]).some((c) => c.name === 'names')
  const rows = db.prepare(`SELECT layer, class, name, ${hasNames ? 'names' : 'NULL'}, ref, flags, minzoom, maxzoom, geometry FROM maps_shapes ORDER BY maxzoom, id`).raw()
  const layer = new Uint8Array(n), flags = new Uint8Array(n), minzoom = new Uint8Array(n)
  const text = new Uint32Array(n * TEXT_COLUMNS)
  const parts = new Uint32Array(n + 1), first = new Uint32Array(n + 1)
  const boxes = new Float64Array(n * 4)
  const band = new Uint8Array(n)
  const counts: number[] = []
  const coordChunks: Int32Array[] = []
  const strings = new Map<string, number>()
  const encoder = new TextEncoder()
  const stringBytes: Uint8Array[] = []
  const stringEnds = [0]
  const id = (s: string | null) => {
    if (s === null) return 0
    let k = strings.get(s)
    if (k === undefined) {
      const bytes = encoder.encode(s)
      stringBytes.push(bytes)
      stringEnds.push(stringEnds[stringEnds.length - 1] + bytes.length)
      strings.set(s, (k = stringEnds.length - 1))
    }
    return k
  }
  let i = 0, coordCount = 0
  for (const [l, cls, name, names, ref, f, min, max, geometry] of rows.iterate() as Iterable<[number, string, string | null, string | null, string | null, number, number, number, Buffer]>) {
    layer[i] = l
    flags[i] = f
    minzoom[i] = min
    band[i] = bandOf(max)
    text.set([id(cls), id(name), id(names), id(ref)], i * TEXT_COLUMNS)
    const g = decodeParts(geometry)
    for (const c of g.counts) counts.push(c)
    parts[i + 1] = counts.length
    const coords = g.coords.slice()
    coordChunks.push(coords)
    coordCount += coords.length
    first[i + 1] = coordCount
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity
    for (let k = 0; k < coords.length; k += 2) {
      const x = coords[k], y = coords[k + 1]
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      if (y > y1) y1 = y
    }
    boxes.set([x0 / 1e7, y0 / 1e7, x1 / 1e7, y1 / 1e7], i * 4)
    i++
  }
  const coords = new Int32Array(coordCount)
  let at = 0
  for (const c of coordChunks) {
    coords.set(c, at)
    at += c.length
  }
  const sections: Sections = {layer, flags, minzoom, text, parts, counts: Uint32Array.from(counts), first, coords}
  const bands = new Uint32Array(BANDS.length * 2)
  for (let b = 0, s = 0; b < BANDS.length; b++) {
    const start = s
    while (s < n && band[s] === b) s++
    bands[2 * b] = start
    bands[2 * b + 1] = s
    if (s === start) continue
    const index = new Flatbush(s - start)
    for (let k = start; k < s; k++) index.add(boxes[4 * k], boxes[4 * k + 1], boxes[4 * k + 2], boxes[4 * k + 3])
    index.finish()
    sections[`index${b}`] = index.data
  }
  sections.bands = bands
  const bytes = new Uint8Array(stringEnds[stringEnds.length - 1])
  stringBytes.forEach((s, k) => bytes.set(s, stringEnds[k]))
  sections.strings = bytes
  sections.stringEnds = Uint32Array.from(stringEnds)
  const meta = (key: string) => db.prepare('SELECT value FROM maps_meta WHERE key = ?').pluck().get(key) as string | undefined
  const areas = meta('areas'), mask = meta('mask')
  sections.areas = Float64Array.from(areas ? (JSON.parse(areas) as number[][]).flat() : [])
  sections.mask = Int32Array.from(mask ? (JSON.parse(mask) as number[]) : [])
  sections.hasMask = Uint8Array.of(mask ? 1 : 0)
  return sections
}

/** The band of BANDS a shape belongs to by its stored maxzoom. */
function bandOf(maxzoom: number): number {
  const b = BANDS.findIndex((band) => band.max === maxzoom)
  if (b < 0) throw new Error(`maps_shapes: maxzoom ${maxzoom} is no band's`)
  return b
}
