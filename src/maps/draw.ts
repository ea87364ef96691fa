import {existsSync} from 'node:fs'
import path from 'node:path'
import {createCanvas, loadImage, type Image} from '@napi-rs/canvas'
import {refuse} from '../errors.js'
import type {Ctx} from './base.js'
import {FONT, registerFonts} from './font.js'
import type {StaticMapInput} from './input.js'
import {Collisions, drawLabels} from './labels.js'
import {MARKER_ID} from './markers.js'
import {PIN_HEIGHT, PIN_WIDTH, drawMarkers, drawPaths} from './overlays.js'
import {encodePng} from './png.js'
import {REMOTE_ICON_BYTES, REMOTE_ICON_MS} from './remote.js'
import {type View, viewport} from './projection.js'
import type {BaseTiles, TileStyle} from './tiles.js'

export const ATTRIBUTION = '© OpenStreetMap contributors'

registerFonts()

/** One image: base map from tiles, labels clear of the overlays, paths, markers, attribution; PNG bytes. */
export function draw(tiles: BaseTiles, input: StaticMapInput, view: View, style: Omit<TileStyle, 'zoom' | 'scale'>, icons: Map<string, Image>): Buffer {
  const s = input.scale
  const vp = viewport(view, s)
  const canvas = createCanvas(input.width * s, input.height * s)
  const g = canvas.getContext('2d')
  const labels = tiles.draw(g, vp.ox, vp.oy, input.width, input.height, {...style, zoom: view.zoom, scale: s})
  g.scale(s, s)
  // labels keep clear of the markers, the paths and the attribution corner
  const free = new Collisions(input.width, input.height)
  free.take(input.width - 150, input.height - 16, input.width, input.height)
  for (const m of input.markers) {
    const k = m.size === 'small' ? 0.7 : 1
    for (let i = 0; i < m.points.length; i += 2) {
      const x = vp.x(m.points[i]), y = vp.y(m.points[i + 1])
      free.take(x - (PIN_WIDTH / 2) * k, y - PIN_HEIGHT * k, x + (PIN_WIDTH / 2) * k, y)
    }
  }
  for (const p of input.paths) {
    const xy = new Float64Array(p.points.length)
    for (let i = 0; i < xy.length; i += 2) {
      xy[i] = vp.x(p.points[i])
      xy[i + 1] = vp.y(p.points[i + 1])
    }
    free.line(xy, p.width + 2 * p.borderWidth)
  }
  drawLabels(g, labels, vp.ox, vp.oy, style.style, input.language, free, view.zoom)
  drawPaths(g, input.paths, vp.x, vp.y)
  drawMarkers(g, input.markers.filter((m) => !m.icon), vp.x, vp.y)
  for (const m of input.markers) {
    const icon = m.icon && icons.get(m.icon)
    if (!icon) continue
    const k = Math.min(1, 64 / Math.max(icon.width, icon.height)) * (m.size === 'small' ? 0.7 : 1)
    const w = icon.width * k, h = icon.height * k
    for (let i = 0; i < m.points.length; i += 2) g.drawImage(icon, vp.x(m.points[i]) - w / 2, vp.y(m.points[i + 1]) - h, w, h)
  }
  attribution(g, input.width, input.height)
  return encodePng(canvas.data(), canvas.width, canvas.height)
}

function attribution(g: Ctx, width: number, height: number): void {
  g.font = `400 10px ${FONT}`
  g.textAlign = 'right'
  g.textBaseline = 'alphabetic'
  const w = g.measureText(ATTRIBUTION).width
  g.fillStyle = 'rgba(255,255,255,0.72)'
  g.fillRect(width - w - 8, height - 15, w + 8, 15)
  g.fillStyle = '#333333'
  g.fillText(ATTRIBUTION, width - 4, height - 4)
}

/** Where marker images come from: uploads under `dir`, and http(s) URLs when `remote` allows them. */
export interface IconSource {
  dir: string
  remote: boolean
  /** How remote icons are fetched (src/maps/remote.ts). */
  fetch: (url: string) => Promise<Buffer>
  /** Remote images already fetched, by URL. */
  fetched: Map<string, {image: Image; at: number}>
}

const REMOTE_TTL_MS = 10 * 60 * 1000
const URL_ICON = /^https?:\/\//i

/** Whether a request's markers name remote icons (their images depend on the `maps.remoteIcons` setting). */
export const hasRemoteIcons = (input: StaticMapInput) => input.markers.some((m) => m.icon !== undefined && URL_ICON.test(m.icon))

/** Marker images: uploaded as `<dir>/<id>.png` (ids: letters, digits, _ and -), or fetched from http(s) URLs (kept 10 minutes). */
export async function loadIcons(input: StaticMapInput, source: IconSource): Promise<Map<string, Image>> {
  const out = new Map<string, Image>()
  for (const m of input.markers) {
    if (!m.icon || out.has(m.icon)) continue
    if (URL_ICON.test(m.icon)) {
      out.set(m.icon, await remoteIcon(m.icon, source))
      continue
    }
    const file = path.join(source.dir, `${m.icon}.png`)
    if (!MARKER_ID.test(m.icon) || !existsSync(file)) throw refuse.invalid('markers', `icon: the id of an uploaded marker image (${m.icon} is not one)`)
    out.set(m.icon, await loadImage(file))
  }
  return out
}

async function remoteIcon(url: string, source: IconSource): Promise<Image> {
  if (!source.remote) throw refuse.invalid('markers', 'icon: the id of an uploaded marker image (icon URLs need the maps.remoteIcons setting on)')
  const kept = source.fetched.get(url)
  if (kept && Date.now() - kept.at < REMOTE_TTL_MS) return kept.image
  let image: Image
  try {
    image = await loadImage(await source.fetch(url))
    if (!image.width || !image.height) throw new Error('not an image')
  } catch (error) {
    const why = error instanceof Error ? error.message : 'failed'
    throw refuse.invalid('markers', `icon: an http(s) URL of a PNG, JPEG or SVG image at a public address, at most ${REMOTE_ICON_BYTES / 1024} KB, answering within ${REMOTE_ICON_MS / 1000} s (${url}: ${why})`)
  }
  if (source.fetched.size >= 64) source.fetched.delete(source.fetched.keys().next().value!)
  source.fetched.set(url, {image, at: Date.now()})
  return image
}

export {BaseTiles} from './tiles.js'
export {warmFonts} from './font.js'
