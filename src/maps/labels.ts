import {type Ctx, type Layers, ROAD_ORDER} from './base.js'
import type {Shape} from './drawing.js'
import {glyphs, lengths, pointAt, stretches} from './along.js'
import {FONT} from './font.js'
import {Layer} from './stage.js'
import type {MapStyle, RoadClass} from './style.js'

const ROAD_LABEL_MINZOOM: Record<string, number> = {motorway: 12, trunk: 12, primary: 13, secondary: 14, tertiary: 14, minor: 15, service: 17, path: 17, track: 17}
const PLACE_LABEL_SIZE: Record<string, number> = {country: 15, state: 14, city: 15, town: 14, village: 13, suburb: 13, quarter: 12, neighbourhood: 12, island: 12, hamlet: 11, locality: 11, islet: 11}
const PLACE_LABEL_CAPS = new Set(['suburb', 'quarter', 'neighbourhood'])
/** Place labels start later than the extraction's minimum: a static map has room for few. */
const PLACE_LABEL_MINZOOM: Record<string, number> = {suburb: 14, quarter: 15, neighbourhood: 16, hamlet: 14, locality: 16, islet: 15}
/** A road part shorter than this (pixels) never holds a name. */
const MIN_ROOM = 24

export const enum Kind {Place, Area, Road}

/**
 * Where a label may go, in world pixels at the map's zoom: a place or area label point (`x`, `y`),
 * or a named road's line (one part of it, `line`) for its name to follow.
 */
export interface Candidate {
  kind: Kind
  cls: string
  name: string
  names: string | null
  x: number
  y: number
  line?: Float64Array
}

/**
 * The label candidates of prepared shapes (pixels relative to world pixel `ox`, `oy`), grouped by
 * the `cell`-pixel cell of the world grid they fall in; a road part is in every cell its segments
 * have their middle in (the same object: images dedupe it).
 */
export function candidates(layers: Layers, z: number, ox: number, oy: number, cell: number): Map<string, Candidate[]> {
  const out = new Map<string, Candidate[]>()
  const add = (key: string, c: Candidate) => {
    const list = out.get(key)
    if (list) list.push(c)
    else out.set(key, [c])
  }
  const cellOf = (x: number, y: number) => `${Math.floor(x / cell)},${Math.floor(y / cell)}`
  for (const {shape, px} of layers.get(Layer.Label) ?? []) {
    const place = shape.cls in PLACE_LABEL_SIZE
    if (place ? z < (PLACE_LABEL_MINZOOM[shape.cls] ?? 0) : !shape.name) continue
    const x = px[0] + ox, y = px[1] + oy
    add(cellOf(x, y), {kind: place ? Kind.Place : Kind.Area, cls: shape.cls, name: shape.name ?? '', names: shape.names, x, y})
  }
  const cells = new Set<string>()
  for (const {shape, px} of layers.get(Layer.Road) ?? []) {
    if (!shape.name || z < (ROAD_LABEL_MINZOOM[shape.cls] ?? 99)) continue
    let k = 0
    for (const n of shape.counts) {
      const end = k + 2 * n
      const line = px.slice(k, end)
      k = end
      if (lengths(line).at(-1)! < MIN_ROOM) continue
      for (let i = 0; i < line.length; i += 2) {
        line[i] += ox
        line[i + 1] += oy
      }
      cells.clear()
      for (let i = 2; i < line.length; i += 2) cells.add(cellOf((line[i] + line[i - 2]) / 2, (line[i + 1] + line[i - 1]) / 2))
      const c: Candidate = {kind: Kind.Road, cls: shape.cls, name: shape.name, names: shape.names, x: line[0], y: line[1], line}
      for (const key of cells) add(key, c)
    }
  }
  return out
}

/**
 * Space taken on the image, as a grid of 4-pixel cells: markers, paths, the attribution and the
 * labels placed so far. A label goes only where every cell under it (and its padding) is free.
 */
export class Collisions {
  private readonly cols: number
  private readonly rows: number
  private readonly grid: Uint8Array

  constructor(readonly width: number, readonly height: number) {
    this.cols = Math.ceil(width / 4)
    this.rows = Math.ceil(height / 4)
    this.grid = new Uint8Array(this.cols * this.rows)
  }

  /** Marks a box as taken. */
  take(x0: number, y0: number, x1: number, y1: number): void {
    const c0 = Math.max(0, Math.floor(x0 / 4)), c1 = Math.min(this.cols - 1, Math.floor(x1 / 4))
    const r0 = Math.max(0, Math.floor(y0 / 4)), r1 = Math.min(this.rows - 1, Math.floor(y1 / 4))
    for (let row = r0; row <= r1; row++) if (c0 <= c1) this.grid.fill(1, row * this.cols + c0, row * this.cols + c1 + 1)
  }

  /** Whether a box `pad` pixels larger is free and inside the image. */
  fits(x0: number, y0: number, x1: number, y1: number, pad = 3): boolean {
    if (x0 < 2 || y0 < 2 || x1 > this.width - 2 || y1 > this.height - 2) return false
    const c0 = Math.max(0, Math.floor((x0 - pad) / 4)), c1 = Math.min(this.cols - 1, Math.floor((x1 + pad) / 4))
    const r0 = Math.max(0, Math.floor((y0 - pad) / 4)), r1 = Math.min(this.rows - 1, Math.floor((y1 + pad) / 4))
    for (let row = r0; row <= r1; row++) {
      for (let c = c0; c <= c1; c++) if (this.grid[row * this.cols + c]) return false
    }
    return true
  }

  place(x0: number, y0: number, x1: number, y1: number, pad = 3): boolean {
    if (!this.fits(x0, y0, x1, y1, pad)) return false
    this.take(x0, y0, x1, y1)
    return true
  }

  /** A polyline (x0, y0, x1, y1, ...) `width` pixels wide, marked as taken with a 2-pixel margin. */
  line(xy: ArrayLike<number>, width: number): void {
    const r = width / 2 + 2
    for (let i = 0; i + 1 < xy.length; i += 2) {
      const x0 = xy[i], y0 = xy[i + 1]
      const x1 = i + 3 < xy.length ? xy[i + 2] : x0, y1 = i + 3 < xy.length ? xy[i + 3] : y0
      const steps = Math.max(1, Math.ceil(Math.hypot(x1 - x0, y1 - y0) / 2))
      if (steps > 4096) continue
      for (let s = 0; s <= steps; s++) {
        const x = x0 + ((x1 - x0) * s) / steps, y = y0 + ((y1 - y0) * s) / steps
        this.take(x - r, y - r, x + r, y + r)
      }
    }
  }
}

/**
 * Draws the labels among `list` (world pixels; the image's top left at `ox`, `oy`) that fit: places
 * first (larger ones first, one per name), then area names, then road names by importance and
 * length, following the road where it bends gently, one per street name and 300-pixel cell.
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
  drawRoadLabels(g, list, ox, oy, style, label, free)
}

/** A road part in image pixels with its cumulative lengths. */
interface RoadLine {
  c: Candidate
  xy: Float64Array
  cum: Float64Array
}

function drawRoadLabels(g: Ctx, list: Candidate[], ox: number, oy: number, style: MapStyle, label: (c: Candidate) => string, free: Collisions): void {
  // a part reaches an image through every tile it crosses, as one object per block drawn
  const seenPart = new Set<string>()
  const roads: RoadLine[] = []
  for (const c of list) {
    if (c.kind !== Kind.Road || !c.line) continue
    const id = `${c.name}|${c.line[0]},${c.line[1]}|${c.line.length}`
    if (seenPart.has(id)) continue
    seenPart.add(id)
    const xy = new Float64Array(c.line.length)
    for (let i = 0; i < xy.length; i += 2) {
      xy[i] = c.line[i] - ox
      xy[i + 1] = c.line[i + 1] - oy
    }
    roads.push({c, xy, cum: lengths(xy)})
  }
  const rank = (c: Candidate) => ROAD_ORDER.indexOf(c.cls as RoadClass)
  roads.sort((a, b) => rank(b.c) - rank(a.c) || b.cum.at(-1)! - a.cum.at(-1)!)
  const seen = new Set<string>()
  const font = `500 11px ${FONT}`
  g.font = font
  for (const {c, xy, cum} of roads) {
    const name = label(c)
    if (!name) continue
    const advances = Array.from(name, (ch) => measure(g, font, ch))
    const width = advances.reduce((a, b) => a + b, 0)
    for (const s of stretches(xy, cum, width + 8, free.width, free.height)) {
      const text = {...s, start: s.start + 4, width}
      const [mx, my] = pointAt(xy, cum, text.start + width / 2)
      const key = `${name}:${Math.round(mx / 300)}:${Math.round(my / 300)}`
      if (seen.has(key)) break
      const at = glyphs(xy, cum, text, advances)
      if (!at.every(([x, y]) => free.fits(x - 5, y - 5, x + 5, y + 5, 2))) continue
      for (const [x, y] of at) free.take(x - 5, y - 5, x + 5, y + 5)
      seen.add(key)
      const chars = Array.from(name)
      for (const pass of [0, 1]) {
        g.strokeStyle = style.labelHalo
        g.lineWidth = 3
        g.fillStyle = style.roadLabel
        chars.forEach((ch, i) => {
          const [x, y, angle] = at[i]
          g.save()
          g.translate(x, y)
          g.rotate(angle)
          if (pass === 0) g.strokeText(ch, 0, 0)
          else g.fillText(ch, 0, 0)
          g.restore()
        })
      }
      break
    }
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
