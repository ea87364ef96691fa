import {type Canvas, createCanvas} from '@napi-rs/canvas'
import type {MapData} from '../map/mapdata.js'
import {REACH_PX, type Ctx, type Projection, type SeaMask, byLayer, drawBase} from './base.js'
import {type DrawingData, drawingData} from './drawing.js'
import {type Candidate, candidates} from './labels.js'
import {TILE, latOf, lonOf, worldX, worldY} from './projection.js'
import type {Box} from './sea.js'
import {MASK_CELL} from './stage.js'
import type {MapStyle} from './style.js'

/** A rendered 256-pixel tile of the base map (no labels) and the label candidates inside it. */
interface Tile {
  canvas: Canvas
  labels: Candidate[]
}

/** What to draw: a style (its `version` keys the tiles), a whole zoom and the pixel ratio. */
export interface TileStyle {
  style: MapStyle
  version: string
  zoom: number
  scale: number
}

/**
 * The base map as tiles of 256 × 256 CSS pixels, rendered in blocks (all missing tiles of an image
 * at once, one read of the map data) and kept in a byte-bounded LRU: an image over a place drawn
 * before only composes tiles, then draws labels and overlays. When the missing tiles' block is
 * larger than the image (the first image of an area: up to 3 times its pixels), the image is drawn
 * in one piece and the block is drawn after the next image that needs it, or once the renderer has
 * been idle for IDLE_MS. Tiles are placed on whole device pixels: an image from tiles differs from
 * one drawn in one piece by a few levels of anti-aliasing on under 1 % of its pixels.
 */
export class BaseTiles {
  private readonly tiles = new Map<string, Tile>()
  private bytes = 0

  constructor(private readonly map: MapData, private readonly maxBytes: number) {}

  /**
   * Draws the base map of the area whose top-left is world pixel `ox`, `oy` (whole device pixels)
   * into `g` (identity transform) and returns the label candidates of the tiles it covers.
   */
  draw(g: Ctx, ox: number, oy: number, width: number, height: number, t: TileStyle): Candidate[] {
    const s = t.scale
    const tx0 = Math.floor(ox / TILE), ty0 = Math.floor(oy / TILE)
    const tx1 = Math.floor((ox + width - 1e-9) / TILE), ty1 = Math.floor((oy + height - 1e-9) / TILE)
    const tileBytes = (TILE * s) ** 2 * 4
    const onePiece = () => {
      g.save()
      g.scale(s, s)
      const labels = renderArea(this.map, g, ox, oy, width, height, t, Infinity)
      g.restore()
      return [...labels.values()].flat()
    }
    // too large to keep
    if ((tx1 - tx0 + 1) * (ty1 - ty0 + 1) * tileBytes > this.maxBytes / 2) return onePiece()
    this.busy()
    const prefix = `${this.map.generation}|${t.version}|${t.zoom}|${s}|`
    const got = new Map<string, Tile>()
    let mx0 = Infinity, my0 = Infinity, mx1 = -Infinity, my1 = -Infinity
    for (let ty = ty0; ty <= ty1; ty++) {
      for (let tx = tx0; tx <= tx1; tx++) {
        const key = `${tx},${ty}`
        const tile = this.tiles.get(prefix + key)
        if (tile) {
          this.tiles.delete(prefix + key)
          this.tiles.set(prefix + key, tile)
          got.set(key, tile)
        } else {
          mx0 = Math.min(mx0, tx); my0 = Math.min(my0, ty); mx1 = Math.max(mx1, tx); my1 = Math.max(my1, ty)
        }
      }
    }
    if (mx0 <= mx1) {
      const block = [mx0, my0, mx1, my1]
      if ((mx1 - mx0 + 1) * (my1 - my0 + 1) * TILE * TILE > width * height) {
        // an area wanted again gets its tiles right after this image, else when the renderer is idle
        if (this.wanted(prefix, block)) setImmediate(() => this.fill(prefix, block, t))
        else this.later(prefix, block, t)
        return onePiece()
      }
      this.fill(prefix, block, t, got)
    }
    const out: Candidate[] = []
    for (let ty = ty0; ty <= ty1; ty++) {
      for (let tx = tx0; tx <= tx1; tx++) {
        const tile = got.get(`${tx},${ty}`)!
        g.drawImage(tile.canvas, Math.round((tx * TILE - ox) * s), Math.round((ty * TILE - oy) * s))
        for (const c of tile.labels) out.push(c)
      }
    }
    return out
  }

  /**
   * Draws the missing tiles of a block (tile x0, y0, x1, y1) in one piece and keeps them; `got`
   * receives them. A block of a replaced generation of the map data is not drawn.
   */
  private fill(prefix: string, [x0, y0, x1, y1]: number[], t: TileStyle, got = new Map<string, Tile>()): void {
    if (!prefix.startsWith(`${this.map.generation}|`)) return
    const s = t.scale
    const block = createCanvas((x1 - x0 + 1) * TILE * s, (y1 - y0 + 1) * TILE * s)
    const bg = block.getContext('2d')
    bg.scale(s, s)
    const labels = renderArea(this.map, bg, x0 * TILE, y0 * TILE, (x1 - x0 + 1) * TILE, (y1 - y0 + 1) * TILE, t, TILE)
    for (let ty = y0; ty <= y1; ty++) {
      for (let tx = x0; tx <= x1; tx++) {
        const key = `${tx},${ty}`
        if (got.has(key) || this.tiles.has(prefix + key)) continue
        const canvas = createCanvas(TILE * s, TILE * s)
        canvas.getContext('2d').drawImage(block, (tx - x0) * TILE * s, (ty - y0) * TILE * s, TILE * s, TILE * s, 0, 0, TILE * s, TILE * s)
        const tile = {canvas, labels: labels.get(key) ?? []}
        got.set(key, tile)
        this.keep(prefix + key, tile, (TILE * s) ** 2 * 4)
      }
    }
  }

  /** Blocks to draw when idle, newest last (a few: under steady load of new areas none is drawn). */
  private readonly pending = new Map<string, {prefix: string; block: number[]; t: TileStyle}>()
  private idle: NodeJS.Timeout | undefined

  /** Whether a pending block meets this one: its area is wanted again (and the block no longer pending). */
  private wanted(prefix: string, [x0, y0, x1, y1]: number[]): boolean {
    for (const [key, p] of this.pending) {
      const [px0, py0, px1, py1] = p.block
      if (p.prefix === prefix && px0 <= x1 && px1 >= x0 && py0 <= y1 && py1 >= y0) {
        this.pending.delete(key)
        return true
      }
    }
    return false
  }

  private later(prefix: string, block: number[], t: TileStyle): void {
    const key = prefix + block.join(',')
    this.pending.delete(key)
    this.pending.set(key, {prefix, block, t})
    if (this.pending.size > 4) this.pending.delete(this.pending.keys().next().value!)
    this.busy()
  }

  /** An image is being drawn: pending blocks wait until IDLE_MS pass without one. */
  private busy(): void {
    if (!this.pending.size) return
    clearTimeout(this.idle)
    this.idle = setTimeout(() => {
      if (!this.pending.size) return
      const [key, next] = [...this.pending].at(-1)!
      this.pending.delete(key)
      this.fill(next.prefix, next.block, next.t)
      this.busy()
    }, IDLE_MS).unref()
  }

  private keep(key: string, tile: Tile, bytes: number): void {
    this.tiles.set(key, tile)
    this.bytes += bytes
    for (const k of this.tiles.keys()) {
      if (this.bytes <= this.maxBytes) break
      const t = this.tiles.get(k)!
      this.tiles.delete(k)
      this.bytes -= t.canvas.width * t.canvas.height * 4
    }
  }
}

/** How long the renderer must have drawn nothing before it draws pending tile blocks. */
const IDLE_MS = 250

/** The sea reaches this many mask cells from a cell holding data. */
const SEA_REACH = 1.5

function seaMask(data: DrawingData[], box: Box, p: Projection, z: number): SeaMask | null {
  const r = SEA_REACH * MASK_CELL
  const grown: Box = [box[0] - r, box[1] - r, box[2] + r, box[3] + r]
  const centres: number[] = []
  for (const d of data) {
    const lonLat = d.maskIn(grown)
    if (!lonLat) return null
    for (let i = 0; i < lonLat.length; i += 2) centres.push(p.x(lonLat[i]), p.y(lonLat[i + 1]))
  }
  const lat = (box[1] + box[3]) / 2
  return {centres, rx: worldX(r, z) - worldX(0, z), ry: Math.abs(worldY(lat + r, z) - worldY(lat, z))}
}

/**
 * Draws the base map of an area (top-left world pixel `ox`, `oy`, CSS pixels) into `g`, which maps
 * CSS pixels of the area; returns its label candidates by `cell`-pixel cell of the world grid.
 */
function renderArea(map: MapData, g: Ctx, ox: number, oy: number, width: number, height: number, t: TileStyle, cell: number): Map<string, Candidate[]> {
  const z = t.zoom
  const box: [number, number, number, number] = [
    lonOf(ox - REACH_PX, z), latOf(oy + height + REACH_PX, z), lonOf(ox + width + REACH_PX, z), latOf(oy - REACH_PX, z),
  ]
  const data = drawingData(map, box)
  const shapes = data.flatMap((d) => d.shapes(box, z))
  const p = {x: (lon: number) => worldX(lon, z) - ox, y: (lat: number) => worldY(lat, z) - oy}
  const layers = byLayer(shapes, z, ox, oy)
  drawBase(g, width, height, z, t.style, layers, seaMask(data, box, p, z))
  return candidates(layers, z, ox, oy, cell)
}
