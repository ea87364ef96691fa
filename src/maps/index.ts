import {createHash} from 'node:crypto'
import {existsSync} from 'node:fs'
import path from 'node:path'
import {createCanvas, loadImage, type Image} from '@napi-rs/canvas'
import {refuse} from '../errors.js'
import type {MapData} from '../map/mapdata.js'
import {ImageCache} from './cache.js'
import {drawingData} from './drawing.js'
import {viewOf} from './fit.js'
import {FONT, registerFonts} from './font.js'
import type {StaticMapInput} from './input.js'
import {PIN_HEIGHT, PIN_WIDTH, drawMarkers, drawPaths} from './overlays.js'
import {type View, viewport} from './projection.js'
import {encodePng} from './png.js'
import {drawBaseMap} from './render.js'
import {loadStyle} from './style.js'

export {parseStaticMap, type StaticMapInput} from './input.js'

export interface StaticMaps {
  /**
   * The PNG for a request, from the cache when an identical one was rendered for the same map
   * data. `key` is the request's canonical form (its query without the key).
   */
  render(input: StaticMapInput, key: string): Promise<Rendered & {cached: boolean}>
}

/** A rendered image and the view it shows (centre and zoom, also when fitted). */
export interface Rendered {
  png: Buffer
  etag: string
  view: View
}

export const ATTRIBUTION = '© OpenStreetMap contributors'

/** The static map renderer of a system: its map data, styles under `stylesDir`, marker images under `markersDir`. */
export function createStaticMaps(map: MapData, options: {stylesDir: string; markersDir: string; cacheBytes?: number}): StaticMaps {
  registerFonts()
  const cache = new ImageCache(options.cacheBytes ?? 64 * 1024 * 1024)
  return {
    async render(input, key) {
      const loaded = loadStyle(input.style, options.stylesDir)
      if (!loaded) throw refuse.invalid('style', 'service-default-v1, service-light-v1, service-dark-v1 or the id of a style file in config/styles')
      const cacheKey = `${map.generation}|${loaded.version}|${key}`
      const hit = cache.get(cacheKey)
      if (hit) return {...hit, cached: true}
      const icons = await loadIcons(input, options.markersDir)
      const view = viewOf(input)
      const png = draw(map, input, view, loaded.style, icons)
      const etag = `"${createHash('sha1').update(png).digest('base64url').slice(0, 20)}"`
      cache.set(cacheKey, {png, etag, view})
      return {png, etag, view, cached: false}
    },
  }
}

function draw(map: MapData, input: StaticMapInput, view: View, style: Parameters<typeof drawBaseMap>[2], icons: Map<string, Image>): Buffer {
  const vp = viewport(view)
  const canvas = createCanvas(input.width * input.scale, input.height * input.scale)
  const g = canvas.getContext('2d')
  g.scale(input.scale, input.scale)
  const regions = drawingData(map, vp.box).map((d) => ({shapes: d.shapes(vp.box, Math.min(23, Math.round(view.zoom)))}))
  // labels keep clear of the markers (the attribution corner too)
  const taken = [input.width - 150, input.height - 16, input.width, input.height]
  for (const m of input.markers) {
    const k = m.size === 'small' ? 0.7 : 1
    for (let i = 0; i < m.points.length; i += 2) {
      const x = vp.x(m.points[i]), y = vp.y(m.points[i + 1])
      taken.push(x - (PIN_WIDTH / 2) * k, y - PIN_HEIGHT * k, x + (PIN_WIDTH / 2) * k, y)
    }
  }
  drawBaseMap(g, view, style, regions, taken, input.language)
  drawPaths(g, input.paths, vp.x, vp.y)
  drawMarkers(g, input.markers.filter((m) => !m.icon), vp.x, vp.y)
  for (const m of input.markers) {
    const icon = m.icon && icons.get(m.icon)
    if (!icon) continue
    const k = Math.min(1, 64 / Math.max(icon.width, icon.height)) * (m.size === 'small' ? 0.7 : 1)
    const w = icon.width * k, h = icon.height * k
    for (let i = 0; i < m.points.length; i += 2) g.drawImage(icon, vp.x(m.points[i]) - w / 2, vp.y(m.points[i + 1]) - h, w, h)
  }
  attribution(g, input.width, input.height, style.label)
  return encodePng(canvas.data(), canvas.width, canvas.height)
}

function attribution(g: ReturnType<ReturnType<typeof createCanvas>['getContext']>, width: number, height: number, colour: string): void {
  g.font = `400 10px ${FONT}`
  g.textAlign = 'right'
  g.textBaseline = 'alphabetic'
  const w = g.measureText(ATTRIBUTION).width
  g.fillStyle = 'rgba(255,255,255,0.72)'
  g.fillRect(width - w - 8, height - 15, w + 8, 15)
  g.fillStyle = '#333333'
  g.fillText(ATTRIBUTION, width - 4, height - 4)
  void colour
}

/** Marker images uploaded as `<markersDir>/<id>.png` (ids: letters, digits, _ and -). */
async function loadIcons(input: StaticMapInput, dir: string): Promise<Map<string, Image>> {
  const out = new Map<string, Image>()
  for (const m of input.markers) {
    if (!m.icon || out.has(m.icon)) continue
    const file = path.join(dir, `${m.icon}.png`)
    if (!/^[A-Za-z0-9_-]{1,64}$/.test(m.icon) || !existsSync(file)) throw refuse.invalid('markers', `icon: the id of an uploaded marker image (${m.icon} is not one)`)
    out.set(m.icon, await loadImage(file))
  }
  return out
}
