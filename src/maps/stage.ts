import type Database from 'better-sqlite3'
import {type Coords, bbox, interiorPoint, signedArea, simplify} from '../osm/geom.js'
import type {MapStage} from '../osm/stage.js'
import {type Box, seaRings} from './sea.js'
import {MAPS_BLOB, MAPS_BLOB_VERSION, type ShapeAttrs, ShapePacker} from './pack.js'

/** Drawing layers, in the order they are painted. */
export const enum Layer {Landuse = 1, Park = 2, Water = 3, Waterway = 4, Building = 5, Road = 6, Rail = 7, Boundary = 8, Label = 9}

export const FLAG_BRIDGE = 1
export const FLAG_TUNNEL = 2

/** Zoom bands of the drawing data; each band's geometry is simplified to half a pixel at its highest zoom. */
export const BANDS = [
  {min: 0, max: 9},
  {min: 10, max: 12},
  {min: 13, max: 15},
  {min: 16, max: 23},
].map((b) => ({...b, tol: b.max >= 16 ? 0 : 180 / (256 * 2 ** b.max)}))

/** Lowest zoom at which a road class is drawn: whole roads by class, never pieces by size. */
export const ROAD_MINZOOM: Record<string, number> = {
  motorway: 5, trunk: 6, primary: 8, secondary: 9, tertiary: 10, ferry: 8, minor: 13, track: 14, service: 14, path: 15,
}
const ADMIN_MINZOOM: Record<number, number> = {2: 0, 4: 4, 6: 8, 7: 9, 8: 10}

interface Shape extends ShapeAttrs {parts: Coords[]; area: boolean}

/**
 * The static maps' drawing data, the blob `maps.bin` (pack.ts: typed arrays with a flatbush per
 * zoom band, each shape simplified per band): the sea built from the coastline, roads whole per
 * way with bridge, tunnel and ref, administrative boundaries, the extraction's other layers, and
 * label points. Nothing is added to map.db: the renderer reads only the blob.
 */
export const mapsStage: MapStage = {
  name: 'maps',
  // 2: the cells holding roads, for drawing sea only near them (maps_meta)
  // 3: the blob maps.bin, the tables packed as typed arrays with a flatbush per band (pack.ts)
  // 4: the blob alone, packed as the shapes are made: no maps_shapes/maps_meta tables in map.db
  version: 4,
  async build(ctx) {
    const {db} = ctx
    const packer = new ShapePacker()
    let shapes = 0
    const put = (s: Shape) => {
      const b = [Infinity, Infinity, -Infinity, -Infinity]
      for (const p of s.parts) bbox(p, b)
      if (!Number.isFinite(b[0])) return
      BANDS.forEach((band, i) => {
        if (band.max < s.minzoom) return
        const parts = band.tol ? s.parts.map((p) => simplify(p, band.tol)).filter((p) => p.length >= (s.area ? 8 : s.layer === Layer.Label ? 2 : 4)) : s.parts
        if (!parts.length) return
        packer.addParts(i, {...s, minzoom: Math.max(band.min, s.minzoom)}, parts)
        shapes++
      })
    }
    const areas = dataAreas(db)
    const coast = (db.prepare("SELECT geometry FROM layer_features WHERE class = 'coastline' AND maxzoom = 22").pluck().all() as string[]).map(lineOf)
    for (const area of areas) {
      const inside = coast.filter((c) => {
        const m = (c.length >> 2) << 1
        return c[m] >= area[0] && c[m] <= area[2] && c[m + 1] >= area[1] && c[m + 1] <= area[3]
      })
      const rings = seaRings(inside, area)
      if (rings.length) put({layer: Layer.Water, cls: 'sea', name: null, minzoom: 0, parts: rings, area: true})
    }
    await ctx.progress(1, 5)
    copyLayers(db, put)
    await ctx.progress(2, 5)
    roads(db, put)
    await ctx.progress(3, 5)
    boundaries(db, put)
    await ctx.progress(4, 5)
    if (!shapes && areas.length) ctx.warn('no drawing data')
    ctx.writeBlob(MAPS_BLOB, packer.finish(areas, dataCells(db)), MAPS_BLOB_VERSION)
  },
  verify(ctx) {
    const blob = ctx.readBlob(MAPS_BLOB, MAPS_BLOB_VERSION)
    const n = blob.array('layer', Uint8Array).length
    const bands = blob.array('bands', Uint32Array)
    const first = blob.array('first', Uint32Array), parts = blob.array('parts', Uint32Array)
    if (bands[bands.length - 1] !== n) throw new Error(`maps.bin: the bands end at shape ${bands[bands.length - 1]} of ${n}`)
    if (first.length !== n + 1 || first[n] !== blob.array('coords', Int32Array).length) throw new Error('maps.bin: coordinates do not match the shapes')
    if (parts.length !== n + 1 || parts[n] !== blob.array('counts', Uint32Array).length) throw new Error('maps.bin: parts do not match the shapes')
  },
}

const CELL = 0.1

/**
 * Where the extract has data, as boxes: cells of 0.1° holding road nodes, grouped into connected
 * clusters (a file may merge distant regions), each cluster's box grown by one cell so the sea
 * reaches past the last road. The sea is built and drawn only inside these boxes.
 */
function dataAreas(db: Database.Database): Box[] {
  const cells = db.prepare(`SELECT DISTINCT CAST(floor(lon / ${CELL}) AS INTEGER) AS x, CAST(floor(lat / ${CELL}) AS INTEGER) AS y FROM graph_nodes`).raw().all() as [number, number][]
  const key = (x: number, y: number) => `${x},${y}`
  const todo = new Map(cells.map(([x, y]) => [key(x, y), [x, y] as [number, number]]))
  const areas: Box[] = []
  for (const [k, start] of todo) {
    todo.delete(k)
    const b = [start[0], start[1], start[0], start[1]]
    const stack = [start]
    while (stack.length) {
      const [x, y] = stack.pop()!
      b[0] = Math.min(b[0], x); b[1] = Math.min(b[1], y); b[2] = Math.max(b[2], x); b[3] = Math.max(b[3], y)
      for (let dx = -2; dx <= 2; dx++) {
        for (let dy = -2; dy <= 2; dy++) {
          const n = todo.get(key(x + dx, y + dy))
          if (n) {
            todo.delete(key(x + dx, y + dy))
            stack.push(n)
          }
        }
      }
    }
    areas.push([(b[0] - 1) * CELL, (b[1] - 1) * CELL, (b[2] + 2) * CELL, (b[3] + 2) * CELL].map((v) => Math.round(v * 1e7) / 1e7) as Box)
  }
  return areas
}

/** Side of the cells of the sea mask, in degrees (~1 km). */
export const MASK_CELL = 0.01

/**
 * The cells of MASK_CELL degrees holding road nodes, as flat [x, y, ...] cell indices: the sea is
 * drawn only near them (see drawBase), not out to the data area's box where the prolonged
 * coastline is a guess.
 */
function dataCells(db: Database.Database): number[] {
  const rows = db.prepare(`SELECT DISTINCT CAST(floor(lon / ${MASK_CELL}) AS INTEGER), CAST(floor(lat / ${MASK_CELL}) AS INTEGER) FROM graph_nodes`).raw().all() as [number, number][]
  return rows.flat()
}

const lineOf = (geojson: string): Coords => (JSON.parse(geojson).coordinates as number[][]).flat()

const COPIED: Record<string, Layer> = {landuse: Layer.Landuse, park: Layer.Park, water: Layer.Water, building: Layer.Building, rail: Layer.Rail}

/** Areas and lines of the extraction (landuse, parks, water, buildings, rail), with label points for named areas. */
function copyLayers(db: Database.Database, put: (s: Shape) => void): void {
  const page = db.prepare("SELECT id, layer, class, name, (SELECT min(minzoom) FROM layer_features b WHERE b.feature = a.feature), geometry FROM layer_features a WHERE id > ? AND layer IN ('landuse', 'park', 'water', 'building', 'rail') AND maxzoom = 22 AND class != 'coastline' ORDER BY id LIMIT 4096").raw()
  for (const [, layerName, cls, name, minzoom, json] of pages(page) as Iterable<[number, string, string, string | null, number, string]>) {
    const g = JSON.parse(json) as {type: string; coordinates: any}
    const polygons: number[][][][] = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : []
    const area = polygons.length > 0
    const layer = !area && layerName === 'water' ? Layer.Waterway : COPIED[layerName]
    const parts: Coords[] = area ? polygons.flatMap((p) => p.map((r) => r.flat())) : [(g.coordinates as number[][]).flat()]
    put({layer, cls, name: layer === Layer.Building ? null : name, minzoom: layer === Layer.Building ? 15 : minzoom, parts, area})
    if (area && name && layer !== Layer.Building) {
      // the label sits in the largest polygon (an exclave is not where a place is named)
      let best = polygons[0], size = -1
      for (const p of polygons) {
        const a = Math.abs(signedArea(p[0].flat()))
        if (a > size) {
          size = a
          best = p
        }
      }
      const [x, y] = interiorPoint(best.map((r) => r.flat()))
      const b = bbox(best[0].flat())
      // shown from the zoom where the area is ~64 px across
      const across = Math.max(b[2] - b[0], b[3] - b[1])
      const z = Math.max(minzoom, Math.min(18, Math.ceil(Math.log2((64 * 360) / (256 * across)))))
      put({layer: Layer.Label, cls: layerName, name, minzoom: z, parts: [[x, y]], area: false})
    }
  }
  const labels = db.prepare(`SELECT class, name, geometry, minzoom, ${hasNames(db) ? "(SELECT names FROM names WHERE kind = 'label' AND ref = feature)" : 'NULL'} FROM layer_features WHERE layer = 'place_label'`)
  for (const [cls, name, json, minzoom, names] of labels.raw().all() as Iterable<[string, string, string, number, string | null]>) {
    put({layer: Layer.Label, cls, name, names, minzoom, parts: [JSON.parse(json).coordinates], area: false})
  }
}

/** Roads whole per OSM way (its edges joined in order), so a road never loses pieces when simplified. */
function roads(db: Database.Database, put: (s: Shape) => void): void {
  const ways = db.prepare('SELECT DISTINCT way_id FROM edges ORDER BY way_id').pluck().all() as number[]
  const names = hasNames(db) ? "(SELECT names FROM names WHERE kind = 'way' AND ref = way_id)" : 'NULL'
  const chunk = db.prepare(`SELECT way_id, source, target, class, name, ref, bridge, tunnel, geometry, ${names} FROM edges WHERE way_id BETWEEN ? AND ? ORDER BY way_id, id`).raw()
  function* rows(): Generator<[number, number, number, string, string | null, string | null, number, number, Buffer, string | null]> {
    for (let i = 0; i < ways.length; i += 4096) yield* chunk.all(ways[i], ways[Math.min(i + 4095, ways.length - 1)]) as any
  }
  let way = -1, last = -1, parts: Coords[] = [], current: Shape | null = null
  const flush = () => {
    if (current) put({...current, parts})
  }
  for (const [wayId, source, target, cls, name, ref, bridge, tunnel, blob, wayNames] of rows()) {
    const g = new Int32Array(blob.buffer.slice(blob.byteOffset, blob.byteOffset + blob.byteLength))
    const c: Coords = Array.from(g, (v) => v / 1e7)
    if (wayId !== way) {
      flush()
      way = wayId
      parts = [c]
      current = {layer: Layer.Road, cls, name, names: wayNames, ref, flags: (bridge ? FLAG_BRIDGE : 0) | (tunnel ? FLAG_TUNNEL : 0), minzoom: ROAD_MINZOOM[cls] ?? 14, parts, area: false}
    } else if (source === last) {
      const p = parts[parts.length - 1]
      for (let i = 2; i < c.length; i++) p.push(c[i])
    } else parts.push(c)
    last = target
  }
  flush()
}

/** Administrative boundaries (country to city) as lines. */
function boundaries(db: Database.Database, put: (s: Shape) => void): void {
  const rows = db.prepare("SELECT admin_level, name, geometry FROM admin_areas WHERE kind != 'postal_code' AND admin_level <= 8").raw().all() as Iterable<[number, string | null, string]>
  for (const [level, name, json] of rows) {
    const g = JSON.parse(json) as {type: string; coordinates: any}
    const polygons: number[][][][] = g.type === 'Polygon' ? [g.coordinates] : g.type === 'MultiPolygon' ? g.coordinates : []
    put({layer: Layer.Boundary, cls: String(level), name, minzoom: ADMIN_MINZOOM[level] ?? 10, parts: polygons.flatMap((p) => p.map((r) => r.flat())), area: false})
  }
}

/** Rows of a statement `... WHERE id > ? ORDER BY id LIMIT n` page by page (one page in memory at a time). */
function* pages(stmt: Database.Statement): Generator<unknown[]> {
  let after = -1
  for (;;) {
    const rows = stmt.all(after) as unknown[][]
    if (!rows.length) return
    after = rows[rows.length - 1][0] as number
    yield* rows
  }
}

/** Regions extracted before the `names` table existed label in the local name only. */
const hasNames = (db: Database.Database) => !!db.prepare("SELECT 1 FROM sqlite_master WHERE name = 'names'").get()
