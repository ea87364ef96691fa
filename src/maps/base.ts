import type {SKRSContext2D} from '@napi-rs/canvas'
import {Layer, FLAG_BRIDGE, FLAG_TUNNEL} from './stage.js'
import type {Shape} from './drawing.js'
import {MAX_LAT, TILE} from './projection.js'
import type {MapStyle, RoadClass} from './style.js'

export type Ctx = SKRSContext2D

/** Road width in pixels by class at zoom 15; it grows ×1.5 per zoom level. */
const ROAD_WIDTH: Record<string, number> = {
  motorway: 8, trunk: 7.5, primary: 7, secondary: 6.5, tertiary: 6, minor: 4.5, service: 2.6, track: 1.6, path: 1.3, ferry: 1.4,
}
/** Painted bottom to top, so major roads cross over minor ones. */
export const ROAD_ORDER: RoadClass[] = ['path', 'track', 'service', 'minor', 'tertiary', 'secondary', 'primary', 'trunk', 'motorway']
/** How far past its line a shape paints (half the widest bridge casing, rounded up): tiles read shapes this far past their edges. */
export const REACH_PX = 32

export function roadWidth(cls: string, z: number): number {
  const w = (ROAD_WIDTH[cls] ?? 2) * 1.5 ** (z - 15)
  const cap = cls === 'path' || cls === 'track' ? 3 : cls === 'service' ? 14 : 42
  return Math.max(cls === 'motorway' || cls === 'trunk' || cls === 'primary' ? 0.9 : 0.5, Math.min(cap, w))
}

/** A shape with its points in pixels (x0, y0, x1, y1, ..., parts one after another as in `shape.counts`). */
export interface Prepared {
  shape: Shape
  px: Float64Array
}

/** Pixel position of lon/lat: what a view or a tile block maps coordinates through. */
export interface Projection {
  x(lon: number): number
  y(lat: number): number
}

/** A shape's points (1e-7 degrees) in pixels of zoom `z` relative to world pixel `ox`, `oy` (worldX/worldY inlined). */
export function project(shape: Shape, z: number, ox: number, oy: number): Prepared {
  const {coords} = shape
  const px = new Float64Array(coords.length)
  const size = TILE * 2 ** z, kx = size / 360 / 1e7, ky = size / (2 * Math.PI), rad = Math.PI / 180 / 1e7, limit = MAX_LAT * 1e7
  for (let k = 0; k < coords.length; k += 2) {
    px[k] = coords[k] * kx + size / 2 - ox
    const lat = coords[k + 1]
    const phi = (lat > limit ? limit : lat < -limit ? -limit : lat) * rad
    px[k + 1] = size / 2 - Math.log(Math.tan(Math.PI / 4 + phi / 2)) * ky - oy
  }
  return {shape, px}
}

/** Where the sea may be drawn: ellipses (`rx` × `ry` pixels) around the centres (x, y pairs) of the cells holding data. */
export interface SeaMask {
  centres: number[]
  rx: number
  ry: number
}

/** Prepared shapes by layer. */
export type Layers = Map<number, Prepared[]>

/** Shapes by layer, in pixels of zoom `z` relative to world pixel `ox`, `oy`. */
export function byLayer(shapes: Shape[], z: number, ox: number, oy: number): Layers {
  const layers: Layers = new Map()
  for (const shape of shapes) {
    let list = layers.get(shape.layer)
    if (!list) layers.set(shape.layer, (list = []))
    list.push(project(shape, z, ox, oy))
  }
  return layers
}

/**
 * Draws the base map without labels: land use and parks, water and the sea, buildings, roads by
 * class with casings (tunnels dashed below, bridges above), rail, boundaries. Where no region has
 * data the map stays plain background: the stage builds the sea inside the regions' data areas, and
 * it is drawn only within `sea` (null: everywhere, for regions imported before the mask existed).
 */
export function drawBase(g: Ctx, width: number, height: number, z: number, style: MapStyle, layers: Layers, sea: SeaMask | null): void {
  g.fillStyle = style.background
  g.fillRect(0, 0, width, height)
  const get = (l: Layer) => layers.get(l) ?? []
  g.lineJoin = 'round'
  g.lineCap = 'round'

  for (const [colour, list] of groupBy(get(Layer.Landuse), (s) => landuseColour(style, s.cls))) fill(g, list, colour)
  for (const [colour, list] of groupBy(get(Layer.Park), (s) => (s.cls === 'nature_reserve' ? style.wood : style.park))) fill(g, list, colour)
  const water = get(Layer.Water)
  if (sea && water.some((w) => w.shape.cls === 'sea')) {
    fill(g, water.filter((w) => w.shape.cls !== 'sea'), style.water)
    g.save()
    g.beginPath()
    for (let i = 0; i < sea.centres.length; i += 2) {
      g.moveTo(sea.centres[i] + sea.rx, sea.centres[i + 1])
      g.ellipse(sea.centres[i], sea.centres[i + 1], sea.rx, sea.ry, 0, 0, 2 * Math.PI)
    }
    g.clip()
    fill(g, water.filter((w) => w.shape.cls === 'sea'), style.water)
    g.restore()
  } else fill(g, water, style.water)
  for (const [big, list] of groupBy(get(Layer.Waterway), (s) => String(s.cls === 'river' || s.cls === 'canal'))) {
    stroke(g, list, style.waterway, big === 'true' ? Math.max(1.5, 3 * 1.4 ** (z - 15)) : Math.max(0.8, 1.4 * 1.3 ** (z - 15)))
  }
  if (z >= 15) {
    fill(g, get(Layer.Building), style.building)
    if (z >= 16) stroke(g, get(Layer.Building), style.buildingLine, 0.7)
  }

  const roads = get(Layer.Road)
  const tunnels = roads.filter((r) => r.shape.flags & FLAG_TUNNEL)
  const surface = roads.filter((r) => !(r.shape.flags & (FLAG_TUNNEL | FLAG_BRIDGE)))
  const bridges = roads.filter((r) => r.shape.flags & FLAG_BRIDGE)
  drawRoads(g, tunnels, style, z, 'tunnel')
  drawRoads(g, surface, style, z, 'surface')
  const rail = get(Layer.Rail), w = z >= 15 ? 1.6 : 1
  stroke(g, rail, style.rail, w)
  if (z >= 14) stroke(g, rail.filter((r) => r.shape.cls === 'rail'), style.background, w * 0.6, [3, 5])
  drawRoads(g, bridges, style, z, 'bridge')
  for (const [cls, list] of groupBy(get(Layer.Boundary), (s) => s.cls)) {
    const level = Number(cls)
    stroke(g, list, style.boundary, level <= 2 ? 1.6 : level <= 4 ? 1.2 : 0.9, level <= 4 ? [6, 3] : [3, 3], 0.8)
  }
}

function landuseColour(s: MapStyle, cls: string): string {
  if (cls === 'wood' || cls === 'forest' || cls === 'scrub') return s.wood
  if (cls === 'grass' || cls === 'meadow' || cls === 'grassland' || cls === 'flowerbed' || cls === 'cemetery' || cls === 'allotments' || cls === 'village_green' || cls === 'recreation_ground') return s.grass
  if (cls === 'residential') return s.residential
  if (cls === 'industrial' || cls === 'railway' || cls === 'construction' || cls === 'brownfield') return s.industrial
  if (cls === 'beach' || cls === 'sand' || cls === 'bare_rock' || cls === 'scree') return s.sand
  return s.landuse
}

function drawRoads(g: Ctx, roads: Prepared[], style: MapStyle, z: number, kind: 'tunnel' | 'surface' | 'bridge'): void {
  const by = groupBy(roads, (s) => s.cls)
  stroke(g, by.get('ferry') ?? [], style.road.ferry, 1.2, [6, 4])
  const casingWidth = (w: number) => (z >= 13 ? Math.max(1, w * 0.16) : 0.5)
  const cased = (cls: string) => z >= 13 && cls !== 'path' && cls !== 'track'
  // casings of every class under the fills of every class: junctions read as one surface
  if (kind === 'bridge') {
    for (const cls of ROAD_ORDER) {
      const list = by.get(cls) ?? []
      const w = roadWidth(cls, z)
      stroke(g, list, style.casing[cls], w + 2 * casingWidth(w) + 1.5)
      stroke(g, list, style.road[cls], w)
    }
    return
  }
  for (const cls of ROAD_ORDER) {
    if (!cased(cls)) continue
    const w = roadWidth(cls, z)
    stroke(g, by.get(cls) ?? [], style.casing[cls], w + 2 * casingWidth(w), kind === 'tunnel' ? [4, 3] : undefined)
  }
  for (const cls of ROAD_ORDER) {
    const w = roadWidth(cls, z)
    const colour = kind === 'tunnel' ? style.tunnelFill : style.road[cls]
    const dash = cls === 'path' || cls === 'track' ? (z >= 16 ? [2, 2] : undefined) : undefined
    stroke(g, by.get(cls) ?? [], cls === 'path' && kind === 'surface' ? style.casing.minor : colour, w, dash, kind === 'tunnel' ? 0.8 : 1)
  }
}

function groupBy(list: Prepared[], key: (s: Shape) => string): Map<string, Prepared[]> {
  const out = new Map<string, Prepared[]>()
  for (const p of list) {
    const k = key(p.shape)
    const l = out.get(k)
    if (l) l.push(p)
    else out.set(k, [p])
  }
  return out
}

/** One path for many shapes of one paint: a native call per vertex, one fill or stroke per group. */
function trace(g: Ctx, list: Prepared[]): void {
  g.beginPath()
  for (const {shape, px} of list) {
    let k = 0
    for (const n of shape.counts) {
      g.moveTo(px[k], px[k + 1])
      for (let end = k + 2 * n, i = k + 2; i < end; i += 2) g.lineTo(px[i], px[i + 1])
      k += 2 * n
    }
  }
}

function fill(g: Ctx, list: Prepared[], colour: string): void {
  if (!list.length) return
  trace(g, list)
  g.fillStyle = colour
  g.fill('nonzero')
}

function stroke(g: Ctx, list: Prepared[], colour: string, width: number, dash?: number[], alpha = 1): void {
  if (!list.length) return
  trace(g, list)
  g.strokeStyle = colour
  g.lineWidth = width
  g.globalAlpha = alpha
  if (dash) g.setLineDash(dash)
  g.stroke()
  if (dash) g.setLineDash([])
  g.globalAlpha = 1
}
