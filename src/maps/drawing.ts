import Flatbush from 'flatbush'
import type Database from 'better-sqlite3'
import {readBlob, StringTable} from '../map/blob.js'
import type {Engine, MapData} from '../map/mapdata.js'
import {MAPS_BLOB, MAPS_BLOB_VERSION, TEXT_COLUMNS, Text, packTables} from './pack.js'
import type {Box} from './sea.js'
import {BANDS, MASK_CELL} from './stage.js'

export interface Shape {
  layer: number
  cls: string
  name: string | null
  /** JSON of name:<lang> tags, or null */
  names: string | null
  ref: string | null
  flags: number
  /** points per part */
  counts: Uint32Array
  /** lon, lat pairs in 1e-7 degrees, parts one after another */
  coords: Int32Array
}

/** Where the packed sections come from: the region's blob, or packed from its tables on load. */
interface Source {
  array<T>(name: string, type: {new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number}): T
  bytes(name: string): Uint8Array
  has(name: string): boolean
}

/**
 * One region's drawing data (see pack.ts) as typed arrays with a flatbush per zoom band: a view's
 * shapes are a flatbush search and array views, no SQL and no copies.
 */
export class DrawingData implements Engine {
  /** Boxes where the region has data (see the stage's dataAreas). */
  readonly areas: Box[] = []
  /** Cells of MASK_CELL degrees holding road nodes (flat x, y indices), or null for regions imported before the mask existed. */
  private readonly mask: Int32Array | null
  private readonly bands: Uint32Array
  private readonly indexes: (Flatbush | null)[]
  private readonly layer: Uint8Array
  private readonly flags: Uint8Array
  private readonly minzoom: Uint8Array
  private readonly text: Uint32Array
  private readonly parts: Uint32Array
  private readonly counts: Uint32Array
  private readonly first: Uint32Array
  private readonly coords: Int32Array
  private readonly strings: StringTable

  constructor(s: Source) {
    this.bands = s.array('bands', Uint32Array)
    this.indexes = BANDS.map((_, b) => {
      if (!s.has(`index${b}`)) return null
      const bytes = s.bytes(`index${b}`)
      return Flatbush.from(bytes.buffer as ArrayBuffer, bytes.byteOffset)
    })
    this.layer = s.array('layer', Uint8Array)
    this.flags = s.array('flags', Uint8Array)
    this.minzoom = s.array('minzoom', Uint8Array)
    this.text = s.array('text', Uint32Array)
    this.parts = s.array('parts', Uint32Array)
    this.counts = s.array('counts', Uint32Array)
    this.first = s.array('first', Uint32Array)
    this.coords = s.array('coords', Int32Array)
    this.strings = new StringTable(s.bytes('strings'), s.array('stringEnds', Uint32Array))
    const areas = s.array('areas', Float64Array)
    for (let i = 0; i + 3 < areas.length; i += 4) this.areas.push([areas[i], areas[i + 1], areas[i + 2], areas[i + 3]])
    this.mask = s.bytes('hasMask')[0] ? s.array('mask', Int32Array) : null
  }

  /** The centres (lon, lat pairs) of the mask cells in `box`, or null when the region has no mask. */
  maskIn(box: Box): number[] | null {
    if (!this.mask) return null
    const out: number[] = []
    const x0 = Math.floor(box[0] / MASK_CELL), y0 = Math.floor(box[1] / MASK_CELL), x1 = Math.floor(box[2] / MASK_CELL), y1 = Math.floor(box[3] / MASK_CELL)
    const m = this.mask
    for (let i = 0; i < m.length; i += 2) {
      if (m[i] >= x0 && m[i] <= x1 && m[i + 1] >= y0 && m[i + 1] <= y1) out.push((m[i] + 0.5) * MASK_CELL, (m[i + 1] + 0.5) * MASK_CELL)
    }
    return out
  }

  close(): void {}

  /** Shapes whose box meets `box` at zoom `z` (an integer), in paint order (the stage's ids). */
  shapes(box: Box, z: number): Shape[] {
    const b = BANDS.findIndex((band) => z >= band.min && z <= band.max)
    const index = this.indexes[b]
    if (!index) return []
    const start = this.bands[2 * b]
    const found = index.search(box[0], box[1], box[2], box[3])
    found.sort((x, y) => x - y)
    const out: Shape[] = []
    for (const k of found) {
      const i = start + k
      if (this.minzoom[i] > z) continue
      const t = i * TEXT_COLUMNS
      out.push({
        layer: this.layer[i],
        cls: this.string(this.text[t + Text.Class])!,
        name: this.string(this.text[t + Text.Name]),
        names: this.string(this.text[t + Text.Names]),
        ref: this.string(this.text[t + Text.Ref]),
        flags: this.flags[i],
        counts: this.counts.subarray(this.parts[i], this.parts[i + 1]),
        coords: this.coords.subarray(this.first[i], this.first[i + 1]),
      })
    }
    return out
  }

  // id 0 is no string; string id ends at stringEnds[id], so it is the table's id - 1
  private string(id: number): string | null {
    return id === 0 ? null : this.strings.at(id - 1)
  }
}

/** A region's drawing data from its `maps.bin`; regions imported before the blob existed (maps@1, @2) get it packed from their tables on load. */
export function loadDrawingData(db: Database.Database, blobFile: string | undefined): DrawingData | null {
  if (blobFile) {
    const blob = readBlob(blobFile, {kind: MAPS_BLOB, version: MAPS_BLOB_VERSION})
    const names = new Set(blob.names())
    return new DrawingData({array: blob.array, bytes: blob.section, has: (n) => names.has(n)})
  }
  if (!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'maps_shapes'").get()) return null
  const sections = packTables(db)
  const view = (name: string) => {
    const v = sections[name]
    return ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v)
  }
  return new DrawingData({
    array: (name, type) => {
      const v = view(name)
      return new type(v.buffer, v.byteOffset, v.byteLength / type.BYTES_PER_ELEMENT)
    },
    bytes: view,
    has: (name) => name in sections,
  })
}

/** Regions without drawing data (imported before the maps stage) hold this engine. */
const NONE = {close() {}}

/** A region's drawing data, loaded on first use per generation; undefined when it has none. */
export function regionDrawing(map: MapData, region: string): DrawingData | undefined {
  const data = map.engine(region, 'drawing', ({db, blobFile}) => loadDrawingData(db, blobFile(MAPS_BLOB)) ?? NONE)
  return data instanceof DrawingData ? data : undefined
}

/**
 * The drawing data of the regions that meet `box`, one region per place: a region whose data areas
 * in the box all lie inside data areas of a region listed before it (an extract imported twice, or
 * a city inside its country's extract) is left out, so nothing is drawn twice.
 */
export function drawingData(map: MapData, box: Box): DrawingData[] {
  const out: DrawingData[] = []
  const covered: Box[] = []
  const meets = (a: Box) => a[2] >= box[0] && a[0] <= box[2] && a[3] >= box[1] && a[1] <= box[3]
  const inside = (a: Box, b: Box) => a[0] >= b[0] && a[1] >= b[1] && a[2] <= b[2] && a[3] <= b[3]
  for (const region of map.regions()) {
    const b = region.bbox
    if (b && (b[2] < box[0] || b[0] > box[2] || b[3] < box[1] || b[1] > box[3])) continue
    const data = regionDrawing(map, region.name)
    if (!data) continue
    const here = data.areas.filter(meets)
    if (here.length && here.every((a) => covered.some((c) => inside(a, c)))) continue
    out.push(data)
    covered.push(...here)
  }
  return out
}
