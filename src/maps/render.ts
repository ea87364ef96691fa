import type {SKRSContext2D} from '@napi-rs/canvas'
import {Layer, FLAG_BRIDGE, FLAG_TUNNEL} from './stage.js'
import type {Shape} from './drawing.js'
import type {MapStyle, RoadClass} from './style.js'
import {type View, viewport} from './projection.js'
import {FONT} from './font.js'

export type Ctx = SKRSContext2D

/** Road width in pixels by class at zoom 15; it grows ×1.5 per zoom level. */
const ROAD_WIDTH: Record<string, number> = {
  motorway: 8, trunk: 7.5, primary: 7, secondary: 6.5, tertiary: 6, minor: 4.5, service: 2.6, track: 1.6, path: 1.3, ferry: 1.4,
}
/** Painted bottom to top, so major roads cross over minor ones. */
const ROAD_ORDER: RoadClass[] = ['path', 'track', 'service', 'minor', 'tertiary', 'secondary', 'primary', 'trunk', 'motorway']
const ROAD_LABEL_MINZOOM: Record<string, number> = {motorway: 12, trunk: 12, primary: 13, secondary: 14, tertiary: 14, minor: 15, service: 17, path: 17, track: 17}
const PLACE_LABEL_SIZE: Record<string, number> = {country: 15, state: 14, city: 15, town: 14, village: 13, suburb: 13, quarter: 12, neighbourhood: 12, island: 12, hamlet: 11, locality: 11, islet: 11}
const PLACE_LABEL_CAPS = new Set(['suburb', 'quarter', 'neighbourhood'])
/** Place labels start later than the extraction's minimum: a static map has room for few. */
const PLACE_LABEL_MINZOOM: Record<string, number> = {suburb: 14, quarter: 15, neighbourhood: 16, hamlet: 14, locality: 16, islet: 15}

export function roadWidth(cls: string, z: number): number {
  const w = (ROAD_WIDTH[cls] ?? 2) * 1.5 ** (z - 15)
  const cap = cls === 'path' || cls === 'track' ? 3 : cls === 'service' ? 14 : 42
  return Math.max(cls === 'motorway' || cls === 'trunk' || cls === 'primary' ? 0.9 : 0.5, Math.min(cap, w))
}

type Pixels = Float64Array[]

interface Prepared {
  shape: Shape
  px: Pixels
}

/**
 * Draws the base map of `view` from the regions' shapes: land use and parks, water and the sea,
 * buildings, roads by class with casings (tunnels dashed below, bridges above), rail, boundaries,
 * then labels placed without collisions. Where no region has data the map stays plain background
 * (the stage builds the sea only inside the regions' data areas).
 */
export function drawBaseMap(g: Ctx, view: View, style: MapStyle, regions: {shapes: Shape[]}[], obstacles: number[] = [], language = 'local'): void {
  const vp = viewport(view)
  const z = view.zoom
  g.fillStyle = style.background
  g.fillRect(0, 0, view.width, view.height)
  const layers = new Map<number, Prepared[]>()
  for (const r of regions) {
    for (const shape of r.shapes) {
      let list = layers.get(shape.layer)
      if (!list) layers.set(shape.layer, (list = []))
      list.push({shape, px: project(shape, vp)})
    }
  }
  const get = (l: Layer) => layers.get(l) ?? []
  g.lineJoin = 'round'
  g.lineCap = 'round'

  for (const [colour, list] of groupBy(get(Layer.Landuse), (s) => landuseColour(style, s.cls))) fill(g, list, colour)
  for (const [colour, list] of groupBy(get(Layer.Park), (s) => (s.cls === 'nature_reserve' ? style.wood : style.park))) fill(g, list, colour)
  fill(g, get(Layer.Water), style.water)
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
  drawLabels(g, view, style, get(Layer.Label), roads, obstacles, language)
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

function project(shape: Shape, vp: ReturnType<typeof viewport>): Pixels {
  const out: Pixels = []
  const {counts, coords} = shape
  let k = 0
  for (let p = 0; p < counts.length; p++) {
    const n = counts[p]
    const px = new Float64Array(n * 2)
    for (let i = 0; i < n; i++, k += 2) {
      px[i * 2] = vp.x(coords[k] / 1e7)
      px[i * 2 + 1] = vp.y(coords[k + 1] / 1e7)
    }
    out.push(px)
  }
  return out
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
  for (const {px} of list) {
    for (const p of px) {
      g.moveTo(p[0], p[1])
      for (let i = 2; i < p.length; i += 2) g.lineTo(p[i], p[i + 1])
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

/** Axis-aligned boxes of the labels placed so far; a label that would overlap one is left out. */
class Collisions {
  private boxes: number[]
  /** `taken`: boxes (x0, y0, x1, y1, ...) labels must avoid, such as the markers. */
  constructor(private readonly w: number, private readonly h: number, taken: number[] = []) {
    this.boxes = [...taken]
  }
  place(x0: number, y0: number, x1: number, y1: number, pad = 3): boolean {
    if (x0 < 2 || y0 < 2 || x1 > this.w - 2 || y1 > this.h - 2) return false
    const b = this.boxes
    for (let i = 0; i < b.length; i += 4) {
      if (x0 - pad < b[i + 2] && x1 + pad > b[i] && y0 - pad < b[i + 3] && y1 + pad > b[i + 1]) return false
    }
    b.push(x0, y0, x1, y1)
    return true
  }
}

function drawLabels(g: Ctx, view: View, style: MapStyle, labels: Prepared[], roads: Prepared[], obstacles: number[], language: string): void {
  const label = labelIn(language)
  const z = view.zoom
  const free = new Collisions(view.width, view.height, obstacles)
  g.textAlign = 'center'
  g.textBaseline = 'middle'
  g.lineJoin = 'round'
  // places first (larger places first), then area names, then roads by importance
  const places = labels.filter((l) => l.shape.cls in PLACE_LABEL_SIZE && z >= (PLACE_LABEL_MINZOOM[l.shape.cls] ?? 0)).sort((a, b) => (PLACE_LABEL_SIZE[b.shape.cls] ?? 0) - (PLACE_LABEL_SIZE[a.shape.cls] ?? 0))
  for (const {shape, px} of places) {
    const size = PLACE_LABEL_SIZE[shape.cls] + (z >= 16 ? 1 : 0)
    const caps = PLACE_LABEL_CAPS.has(shape.cls)
    const text = caps ? label(shape).toUpperCase() : label(shape)
    text && halo(g, free, text, px[0][0], px[0][1], `${caps ? 600 : 700} ${caps ? size - 2 : size}px ${FONT}`, style.label, style.labelHalo, caps ? 1.5 : 0)
  }
  const areas = labels.filter((l) => !(l.shape.cls in PLACE_LABEL_SIZE))
  for (const {shape, px} of areas) {
    const colour = shape.cls === 'water' ? style.waterLabel : shape.cls === 'park' ? style.parkLabel : style.label
    halo(g, free, shape.name!, px[0][0], px[0][1], `italic 400 11px ${FONT}`, colour, style.labelHalo, 0)
  }
  const named = roads.filter((r) => r.shape.name && z >= (ROAD_LABEL_MINZOOM[r.shape.cls] ?? 99))
  named.sort((a, b) => ROAD_ORDER.indexOf(b.shape.cls as RoadClass) - ROAD_ORDER.indexOf(a.shape.cls as RoadClass))
  const seen = new Set<string>()
  g.font = `500 11px ${FONT}`
  for (const {shape, px} of named) {
    const name = label(shape)
    const width = g.measureText(name).width
    // the longest straight stretch of the road in view; the name goes there if it fits
    let best = 0, bx = 0, by = 0, angle = 0
    for (const p of px) {
      for (let i = 2; i < p.length; i += 2) {
        const dx = p[i] - p[i - 2], dy = p[i + 1] - p[i - 1]
        const len = Math.hypot(dx, dy)
        const mx = (p[i] + p[i - 2]) / 2, my = (p[i + 1] + p[i - 1]) / 2
        if (len > best && mx > 0 && my > 0 && mx < view.width && my < view.height) {
          best = len
          bx = mx
          by = my
          angle = Math.atan2(dy, dx)
        }
      }
    }
    if (best < width + 16) continue
    // one label per street name and view, unless far apart
    const key = `${name}:${Math.round(bx / 300)}:${Math.round(by / 300)}`
    if (seen.has(key)) continue
    if (angle > Math.PI / 2) angle -= Math.PI
    if (angle < -Math.PI / 2) angle += Math.PI
    const c = Math.abs(Math.cos(angle)), s = Math.abs(Math.sin(angle))
    const hw = (width / 2) * c + 6 * s, hh = (width / 2) * s + 6 * c
    if (!free.place(bx - hw, by - hh, bx + hw, by + hh, 2)) continue
    seen.add(key)
    g.save()
    g.translate(bx, by)
    g.rotate(angle)
    g.strokeStyle = style.labelHalo
    g.lineWidth = 3
    g.strokeText(name, 0, 0)
    g.fillStyle = style.roadLabel
    g.fillText(name, 0, 0)
    g.restore()
  }
}

function halo(g: Ctx, free: Collisions, text: string, x: number, y: number, font: string, colour: string, haloColour: string, spacing: number): void {
  g.font = font
  ;(g as {letterSpacing?: string}).letterSpacing = `${spacing}px`
  const m = g.measureText(text)
  const w = m.width, h = Number(/(\d+)px/.exec(font)![1])
  if (free.place(x - w / 2, y - h / 2, x + w / 2, y + h / 2)) {
    g.strokeStyle = haloColour
    g.lineWidth = 3
    g.strokeText(text, x, y)
    g.fillStyle = colour
    g.fillText(text, x, y)
  }
  ;(g as {letterSpacing?: string}).letterSpacing = '0px'
}

/** A shape's label in `language` (its `name:<lang>`), else its local `name`. */
function labelIn(language: string): (shape: Shape) => string {
  const lang = language === 'local' ? '' : language.slice(0, 2).toLowerCase()
  return (shape) => {
    if (lang && shape.names) {
      const local = (JSON.parse(shape.names) as Record<string, string>)[lang]
      if (local) return local
    }
    return shape.name ?? ''
  }
}
