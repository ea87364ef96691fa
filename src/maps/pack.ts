import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import type {Sections} from '../map/blob.js'
import type {Coords} from '../osm/geom.js'
import {Growable} from '../osm/tables.js'
import {BANDS} from './stage.js'

/** The drawing blob: `maps.bin`, kind version 1. */
export const MAPS_BLOB = 'maps'
export const MAPS_BLOB_VERSION = 1

/** Per-shape string columns, in this order, in section `text` (string ids, 0 for null). */
export const enum Text {Class = 0, Name = 1, Names = 2, Ref = 3}
export const TEXT_COLUMNS = 4

/** What a shape carries besides its geometry. */
export interface ShapeAttrs {layer: number; cls: string; name: string | null; names?: string | null; ref?: string | null; flags?: number; minzoom: number}

/** One zoom band's shapes as they are added, column by column. */
class Band {
  n = 0
  readonly small = new Growable(new Uint8Array(3 << 10)) // layer, flags, minzoom
  readonly text = new Growable(new Uint32Array(4 << 10)) // provisional string ids (see finish)
  readonly counts = new Growable(new Uint32Array(1 << 10))
  readonly partEnds = new Growable(new Uint32Array(1 << 10))
  readonly coords = new Growable(new Int32Array(1 << 14))
  readonly coordEnds = new Growable(new Uint32Array(1 << 10))
  readonly boxes = new Growable(new Float64Array(4 << 10))
}

/**
 * Builds a region's drawing data as flat arrays (kdbush/flatbush style): shapes are added per zoom
 * band in paint order and come out ordered by band, then by the order they were added.
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
export class ShapePacker {
  private readonly bands = BANDS.map(() => new Band())
  private readonly ids = new Map<string, number>()
  private readonly strings: string[] = ['']

  /** Adds a shape to band `b`: its parts as lon, lat degrees, stored in 1e-7 degrees. */
  addParts(b: number, s: ShapeAttrs, parts: Coords[]): void {
    const band = this.bands[b]
    for (const p of parts) {
      band.coords.reserve(p.length)
      const c = band.coords.data
      let k = band.coords.length
      for (let j = 0; j < p.length; j++) c[k++] = Math.round(p[j] * 1e7)
      band.coords.length = k
      band.counts.push(p.length / 2)
    }
    this.close(band, s)
  }

  /** Adds a shape already in 1e-7 degrees: `counts` points per part, `coords` lon, lat pairs. */
  addEncoded(b: number, s: ShapeAttrs, counts: ArrayLike<number>, coords: Int32Array): void {
    const band = this.bands[b]
    for (let i = 0; i < counts.length; i++) band.counts.push(counts[i])
    band.coords.reserve(coords.length)
    band.coords.data.set(coords, band.coords.length)
    band.coords.length += coords.length
    this.close(band, s)
  }

  /** Records the shape whose parts were just written: its attributes, ends and box. */
  private close(band: Band, s: ShapeAttrs): void {
    const start = band.n ? band.coordEnds.data[band.n - 1] : 0
    const c = band.coords.data
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity
    for (let k = start; k < band.coords.length; k += 2) {
      const x = c[k], y = c[k + 1]
      if (x < x0) x0 = x
      if (x > x1) x1 = x
      if (y < y0) y0 = y
      if (y > y1) y1 = y
    }
    for (const v of [x0 / 1e7, y0 / 1e7, x1 / 1e7, y1 / 1e7]) band.boxes.push(v)
    for (const v of [s.layer, s.flags ?? 0, s.minzoom]) band.small.push(v)
    for (const v of [s.cls, s.name, s.names ?? null, s.ref ?? null]) band.text.push(this.id(v))
    band.partEnds.push(band.counts.length)
    band.coordEnds.push(band.coords.length)
    band.n++
  }

  private id(s: string | null): number {
    if (s === null) return 0
    let k = this.ids.get(s)
    if (k === undefined) {
      this.ids.set(s, (k = this.strings.length))
      this.strings.push(s)
    }
    return k
  }

  /** The blob's sections; `areas` are the data-area boxes, `mask` the mask cells or null. */
  finish(areas: number[][], mask: number[] | null): Sections {
    const n = this.bands.reduce((sum, b) => sum + b.n, 0)
    const nCounts = this.bands.reduce((sum, b) => sum + b.counts.length, 0)
    const nCoords = this.bands.reduce((sum, b) => sum + b.coords.length, 0)
    const layer = new Uint8Array(n), flags = new Uint8Array(n), minzoom = new Uint8Array(n)
    const text = new Uint32Array(n * TEXT_COLUMNS)
    const parts = new Uint32Array(n + 1), first = new Uint32Array(n + 1)
    const counts = new Uint32Array(nCounts), coords = new Int32Array(nCoords)
    const bands = new Uint32Array(BANDS.length * 2)
    const sections: Sections = {layer, flags, minzoom, text, parts, counts, first, coords}
    // string ids in order of first use in the output (as packing the stage's rows in order did)
    const remap = new Uint32Array(this.strings.length)
    const order = ['']
    let i = 0, countsAt = 0, coordsAt = 0
    this.bands.forEach((band, b) => {
      bands[2 * b] = i
      bands[2 * b + 1] = i + band.n
      counts.set(band.counts.data.subarray(0, band.counts.length), countsAt)
      coords.set(band.coords.data.subarray(0, band.coords.length), coordsAt)
      for (let k = 0; k < band.n; k++, i++) {
        layer[i] = band.small.data[3 * k]
        flags[i] = band.small.data[3 * k + 1]
        minzoom[i] = band.small.data[3 * k + 2]
        for (let t = 0; t < TEXT_COLUMNS; t++) {
          const id = band.text.data[k * TEXT_COLUMNS + t]
          if (id && !remap[id]) remap[id] = order.push(this.strings[id]) - 1
          text[i * TEXT_COLUMNS + t] = remap[id]
        }
        parts[i + 1] = countsAt + band.partEnds.data[k]
        first[i + 1] = coordsAt + band.coordEnds.data[k]
      }
      countsAt += band.counts.length
      coordsAt += band.coords.length
      if (!band.n) return
      const index = new Flatbush(band.n)
      const box = band.boxes.data
      for (let k = 0; k < band.n; k++) index.add(box[4 * k], box[4 * k + 1], box[4 * k + 2], box[4 * k + 3])
      index.finish()
      sections[`index${b}`] = index.data
    })
    const encoder = new TextEncoder()
    const encoded = order.map((s) => encoder.encode(s))
    const stringEnds = new Uint32Array(encoded.length)
    for (let k = 1; k < encoded.length; k++) stringEnds[k] = stringEnds[k - 1] + encoded[k].length
    const bytes = new Uint8Array(stringEnds[stringEnds.length - 1])
    for (let k = 1; k < encoded.length; k++) bytes.set(encoded[k], stringEnds[k - 1])
    Object.assign(sections, {bands, strings: bytes, stringEnds})
    sections.areas = Float64Array.from(areas.flat())
    sections.mask = Int32Array.from(mask ?? [])
    sections.hasMask = Uint8Array.of(mask ? 1 : 0)
    return sections
  }
}

/**
 * The drawing data of a region imported before maps@3 wrote `maps.bin`, packed from the tables
 * those versions kept in map.db (`maps_shapes`, `maps_meta`).
 */
export function packTables(db: Database.Database): Sections {
  const packer = new ShapePacker()
  const hasNames = (db.prepare('PRAGMA table_info(maps_shapes)').all() as {name: string}[]).some((c) => c.name === 'names')
  const rows = db.prepare(`SELECT layer, class, name, ${hasNames ? 'names' : 'NULL'}, ref, flags, minzoom, maxzoom, geometry FROM maps_shapes ORDER BY maxzoom, id`).raw()
  for (const [layer, cls, name, names, ref, flags, minzoom, maxzoom, geometry] of rows.iterate() as Iterable<[number, string, string | null, string | null, string | null, number, number, number, Buffer]>) {
    const b = BANDS.findIndex((band) => band.max === maxzoom)
    if (b < 0) throw new Error(`maps_shapes: maxzoom ${maxzoom} is no band's`)
    // one Int32 blob per shape: [partCount, points per part..., lon, lat, ...]; copied, as SQLite's
    // Buffers may not be 4-byte aligned inside node's pool
    const g = new Int32Array(Uint8Array.from(geometry).buffer)
    packer.addEncoded(b, {layer, cls, name, names, ref, flags, minzoom}, g.subarray(1, 1 + g[0]), g.subarray(1 + g[0]))
  }
  const meta = (key: string) => db.prepare('SELECT value FROM maps_meta WHERE key = ?').pluck().get(key) as string | undefined
  const areas = meta('areas'), mask = meta('mask')
  return packer.finish(areas ? JSON.parse(areas) : [], mask ? JSON.parse(mask) : null)
}
