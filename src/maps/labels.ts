import {type Ctx, type Layers, ROAD_ORDER} from './base.js'
import type {Shape} from './drawing.js'
import {FONT} from './font.js'
import {Layer} from './stage.js'
import type {MapStyle, RoadClass} from './style.js'

const ROAD_LABEL_MINZOOM: Record<string, number> = {motorway: 12, trunk: 12, primary: 13, secondary: 14, tertiary: 14, minor: 15, service: 17, path: 17, track: 17}
const PLACE_LABEL_SIZE: Record<string, number> = {country: 15, state: 14, city: 15, town: 14, village: 13, suburb: 13, quarter: 12, neighbourhood: 12, island: 12, hamlet: 11, locality: 11, islet: 11}
const PLACE_LABEL_CAPS = new Set(['suburb', 'quarter', 'neighbourhood'])
/** Place labels start later than the extraction's minimum: a static map has room for few. */
const PLACE_LABEL_MINZOOM: Record<string, number> = {suburb: 14, quarter: 15, neighbourhood: 16, hamlet: 14, locality: 16, islet: 15}
/** A road stretch shorter than this (pixels) never holds a name. */
const MIN_ROOM = 24

export const enum Kind {Place, Area, Road}

/**
 * Where a label may go, in world pixels at the map's zoom: a place or area label point, or the
 * middle of a road's longest straight stretch (`room` pixels long, at `angle`) within one tile.
 */
export interface Candidate {
  kind: Kind
  cls: string
  name: string
  names: string | null
  x: number
  y: number
  angle: number
  room: number
}

/**
 * The label candidates of prepared shapes (pixels relative to world pixel `ox`, `oy`), grouped by
 * the `cell`-pixel cell of the world grid they fall in: per road and cell its longest stretch.
 */
export function candidates(layers: Layers, z: number, ox: number, oy: number, cell: number): Map<string, Candidate[]> {
  const out = new Map<string, Candidate[]>()
  const add = (c: Candidate) => {
    const key = `${Math.floor(c.x / cell)},${Math.floor(c.y / cell)}`
    const list = out.get(key)
    if (list) list.push(c)
    else out.set(key, [c])
  }
  for (const {shape, px} of layers.get(Layer.Label) ?? []) {
    const place = shape.cls in PLACE_LABEL_SIZE
    if (place ? z < (PLACE_LABEL_MINZOOM[shape.cls] ?? 0) : !shape.name) continue
    add({kind: place ? Kind.Place : Kind.Area, cls: shape.cls, name: shape.name ?? '', names: shape.names, x: px[0] + ox, y: px[1] + oy, angle: 0, room: 0})
  }
  const best = new Map<string, Candidate>()
  for (const {shape, px} of layers.get(Layer.Road) ?? []) {
    if (!shape.name || z < (ROAD_LABEL_MINZOOM[shape.cls] ?? 99)) continue
    best.clear()
    let k = 0
    for (const n of shape.counts) {
      const end = k + 2 * n
      for (let i = k + 2; i < end; i += 2) {
        const dx = px[i] - px[i - 2], dy = px[i + 1] - px[i - 1]
        const room = Math.hypot(dx, dy)
        if (room < MIN_ROOM) continue
        const x = (px[i] + px[i - 2]) / 2 + ox, y = (px[i + 1] + px[i - 1]) / 2 + oy
        const key = `${Math.floor(x / cell)},${Math.floor(y / cell)}`
        const b = best.get(key)
        if (!b || room > b.room) best.set(key, {kind: Kind.Road, cls: shape.cls, name: shape.name, names: shape.names, x, y, angle: Math.atan2(dy, dx), room})
      }
      k = end
    }
    for (const c of best.values()) add(c)
  }
  return out
}

/**
 * Space taken on the image: boxes (markers, the attribution) and a grid of 4-pixel cells along
 * lines (paths). A label is placed only where it overlaps neither, nor a label placed before.
 */
export class Collisions {
  private readonly boxes: number[] = []
  private readonly cols: number
  private readonly grid: Uint8Array

  constructor(readonly width: number, readonly height: number) {
    this.cols = Math.ceil(width / 4)
    this.grid = new Uint8Array(this.cols * Math.ceil(height / 4))
  }

  box(x0: number, y0: number, x1: number, y1: number): void {
    this.boxes.push(x0, y0, x1, y1)
  }

  /** A polyline (x0, y0, x1, y1, ...) `width` pixels wide. */
  line(xy: ArrayLike<number>, width: number): void {
    const r = width / 2 + 2
    for (let i = 0; i + 1 < xy.length; i += 2) {
      const x0 = xy[i], y0 = xy[i + 1]
      const x1 = i + 3 < xy.length ? xy[i + 2] : x0, y1 = i + 3 < xy.length ? xy[i + 3] : y0
      const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 2))
      if (steps > 4096) continue
      for (let s = 0; s <= steps; s++) this.mark(x0 + ((x1 - x0) * s) / steps, y0 + ((y1 - y0) * s) / steps, r)
    }
  }

  private mark(x: number, y: number, r: number): void {
    const c0 = Math.max(0, Math.floor((x - r) / 4)), c1 = Math.min(this.cols - 1, Math.floor((x + r) / 4))
    const rows = this.grid.length / this.cols
    const r0 = Math.max(0, Math.floor((y - r) / 4)), r1 = Math.min(rows - 1, Math.floor((y + r) / 4))
    for (let row = r0; row <= r1; row++) this.grid.fill(1, row * this.cols + c0, row * this.cols + c1 + 1)
  }

  place(x0: number, y0: number, x1: number, y1: number, pad = 3): boolean {
    if (x0 < 2 || y0 < 2 || x1 > this.width - 2 || y1 > this.height - 2) return false
    const b = this.boxes
    for (let i = 0; i < b.length; i += 4) {
      if (x0 - pad < b[i + 2] && x1 + pad > b[i] && y0 - pad < b[i + 3] && y1 + pad > b[i + 1]) return false
    }
    const c0 = Math.floor(x0 / 4), c1 = Math.floor(x1 / 4)
    for (let row = Math.floor(y0 / 4); row <= Math.floor(y1 / 4); row++) {
      for (let c = c0; c <= c1; c++) if (this.grid[row * this.cols + c]) return false
    }
    b.push(x0, y0, x1, y1)
    return true
  }
}

/**
 * Draws the labels among `list` (world pixels; the image's top left at `ox`, `oy`) that fit: places
 * first (larger ones first), then area names, then road names by importance and room, one per
 * street name and 300-pixel cell.
 */
export function drawLabels(g: Ctx, list: Candidate[], ox: number, oy: number, style: MapStyle, language: string, free: Collisions, z: number): void {
  const label = labelIn(language)
  g.textAlign = 'center'
  g.textBaseline = 'middle'
  g.lineJoin = 'round'
  const places = list.filter((c) => c.kind === Kind.Place).sort((a, b) => PLACE_LABEL_SIZE[b.cls] - PLACE_LABEL_SIZE[a.cls])
  // one label per place name (Monaco is a country and a city, at two points)
  const named = new Set<string>()
  for (const c of places) {
    const size = PLACE_LABEL_SIZE[c.cls] + (z >= 16 ? 1 : 0)
    const caps = PLACE_LABEL_CAPS.has(c.cls)
    const text = caps ? label(c).toUpperCase() : label(c)
    if (!text || named.has(text.toLowerCase())) continue
    if (halo(g, free, text, c.x - ox, c.y - oy, `${caps ? 600 : 700} ${caps ? size - 2 : size}px ${FONT}`, style.label, style.labelHalo, caps ? 1.5 : 0)) named.add(text.toLowerCase())
  }
  for (const c of list) {
    if (c.kind !== Kind.Area) continue
    const colour = c.cls === 'water' ? style.waterLabel : c.cls === 'park' ? style.parkLabel : style.label
    halo(g, free, c.name, c.x - ox, c.y - oy, `italic 400 11px ${FONT}`, colour, style.labelHalo, 0)
  }
  const roads = list.filter((c) => c.kind === Kind.Road)
  const rank = (c: Candidate) => ROAD_ORDER.indexOf(c.cls as RoadClass)
  roads.sort((a, b) => rank(b) - rank(a) || b.room - a.room)
  const seen = new Set<string>()
  const font = `500 11px ${FONT}`
  g.font = font
  for (const c of roads) {
    const bx = c.x - ox, by = c.y - oy
    if (bx <= 0 || by <= 0 || bx >= free.width || by >= free.height) continue
    const name = label(c)
    const width = measure(g, font, name)
    if (c.room < width + 16) continue
    const key = `${name}:${Math.round(bx / 300)}:${Math.round(by / 300)}`
    if (seen.has(key)) continue
    let angle = c.angle
    if (angle > Math.PI / 2) angle -= Math.PI
    if (angle < -Math.PI / 2) angle += Math.PI
    const cos = Math.abs(Math.cos(angle)), sin = Math.abs(Math.sin(angle))
    const hw = (width / 2) * cos + 6 * sin, hh = (width / 2) * sin + 6 * cos
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

function halo(g: Ctx, free: Collisions, text: string, x: number, y: number, font: string, colour: string, haloColour: string, spacing: number): boolean {
  g.font = font
  ;(g as {letterSpacing?: string}).letterSpacing = `${spacing}px`
  const w = measure(g, `${font}|${spacing}`, text), h = Number(/(\d+)px/.exec(font)![1])
  const placed = free.place(x - w / 2, y - h / 2, x + w / 2, y + h / 2)
  if (placed) {
    g.strokeStyle = haloColour
    g.lineWidth = 3
    g.strokeText(text, x, y)
    g.fillStyle = colour
    g.fillText(text, x, y)
  }
  ;(g as {letterSpacing?: string}).letterSpacing = '0px'
  return placed
}

/** Text widths by font and text (shaping a label costs tens of microseconds; names repeat across images). */
const widths = new Map<string, number>()

function measure(g: Ctx, font: string, text: string): number {
  const key = `${font}|${text}`
  let w = widths.get(key)
  if (w === undefined) {
    if (widths.size >= 20_000) widths.clear()
    widths.set(key, (w = g.measureText(text).width))
  }
  return w
}

/** A label in `language` (its `name:<lang>`), else its local `name`. */
function labelIn(language: string): (c: Pick<Shape, 'name' | 'names'>) => string {
  const lang = language === 'local' ? '' : language.slice(0, 2).toLowerCase()
  return (c) => {
    if (lang && c.names) {
      const local = (JSON.parse(c.names) as Record<string, string>)[lang]
      if (local) return local
    }
    return c.name ?? ''
  }
}
