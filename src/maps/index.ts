import {createHash} from 'node:crypto'
import {refuse} from '../errors.js'
import type {MapData} from '../map/mapdata.js'
import {ImageCache} from './cache.js'
import {viewOf} from './fit.js'
import type {StaticMapInput} from './input.js'
import type {View} from './projection.js'
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

/** The static map renderer of a system: its map data, styles under `stylesDir`, marker images under `markersDir`. */
export function createStaticMaps(map: MapData, options: {stylesDir: string; markersDir: string; cacheBytes?: number}): StaticMaps {
  // the renderer (a native module and fonts) loads on the first image, not with every CLI command
  let renderer: Promise<typeof import('./draw.js')> | undefined
  const cache = new ImageCache(options.cacheBytes ?? 64 * 1024 * 1024)
  return {
    async render(input, key) {
      const loaded = loadStyle(input.style, options.stylesDir)
      if (!loaded) throw refuse.invalid('style', 'service-default-v1, service-light-v1, service-dark-v1 or the id of a style file in config/styles')
      const cacheKey = `${map.generation}|${loaded.version}|${key}`
      const hit = cache.get(cacheKey)
      if (hit) return {...hit, cached: true}
      const {draw, loadIcons} = await (renderer ??= import('./draw.js'))
      const icons = await loadIcons(input, options.markersDir)
      const view = viewOf(input)
      const png = draw(map, input, view, loaded.style, icons)
      const etag = `"${createHash('sha1').update(png).digest('base64url').slice(0, 20)}"`
      cache.set(cacheKey, {png, etag, view})
      return {png, etag, view, cached: false}
    },
  }
}

