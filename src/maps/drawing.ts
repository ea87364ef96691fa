import type Database from 'better-sqlite3'
import type {Engine, MapData} from '../map/mapdata.js'
import type {Box} from './sea.js'
import {type Parts, decodeParts} from './shapes.js'
import {MASK_CELL} from './stage.js'

export interface Shape extends Parts {
  layer: number
  cls: string
  name: string | null
  /** JSON of name:<lang> tags, or null */
  names: string | null
  ref: string | null
  flags: number
}

type Row = [number, string, string | null, string | null, string | null, number, Buffer]

/** One region's drawing data (the `maps` stage's tables), queried by box and zoom. */
export class DrawingData implements Engine {
  private readonly query: Database.Statement | null
  /** Boxes where the region has data (see the stage's dataAreas). */
  readonly areas: Box[]
  /** Cells of MASK_CELL degrees holding road nodes (flat x, y indices), or null for regions imported before the mask existed. */
  private readonly mask: Int32Array | null

  constructor(db: Database.Database) {
    const columns = (db.prepare('PRAGMA table_info(maps_shapes)').all() as {name: string}[]).map((c) => c.name)
    const has = columns.length > 0
    this.query = has
      ? db.prepare(`SELECT s.layer, s.class, s.name, ${columns.includes('names') ? 's.names' : 'NULL'}, s.ref, s.flags, s.geometry FROM maps_shapes_rtree r JOIN maps_shapes s ON s.id = r.id
          WHERE r.max_lon >= ? AND r.min_lon <= ? AND r.max_lat >= ? AND r.min_lat <= ? AND s.minzoom <= ? AND s.maxzoom >= ?`).raw()
      : null
    const areas = has ? (db.prepare("SELECT value FROM maps_meta WHERE key = 'areas'").pluck().get() as string | undefined) : undefined
    this.areas = areas ? JSON.parse(areas) : []
    const mask = has ? (db.prepare("SELECT value FROM maps_meta WHERE key = 'mask'").pluck().get() as string | undefined) : undefined
    this.mask = mask ? Int32Array.from(JSON.parse(mask) as number[]) : null
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

  /** Whether the region was imported with the maps stage (older regions draw nothing). */
  get drawable(): boolean {
    return this.query !== null
  }

  close(): void {}

  /** Shapes whose box meets `box` at zoom `z` (an integer). */
  shapes(box: Box, z: number): Shape[] {
    if (!this.query) return []
    const rows = this.query.all(box[0], box[2], box[1], box[3], z, z) as Row[]
    return rows.map(([layer, cls, name, names, ref, flags, geometry]) => ({layer, cls, name, names, ref, flags, ...decodeParts(geometry)}))
  }
}

/** The drawing data of every region that meets `box` (regions without the stage are skipped). */
export function drawingData(map: MapData, box: Box): DrawingData[] {
  const out: DrawingData[] = []
  for (const region of map.regions()) {
    const b = region.bbox
    if (b && (b[2] < box[0] || b[0] > box[2] || b[3] < box[1] || b[1] > box[3])) continue
    const data = map.engine(region.name, 'drawing', ({db}) => new DrawingData(db))
    if (data?.drawable) out.push(data)
  }
  return out
}
