import {createHash} from 'node:crypto'
import {refuse} from '../errors.js'
import type {MapData} from '../map/mapdata.js'
import {ImageCache} from './cache.js'
import {drawingData} from './drawing.js'
import {viewOf} from './fit.js'
import type {StaticMapInput} from './input.js'
import type {View} from './projection.js'
import {remoteFetcher} from './remote.js'
import {BUILT_IN_STYLES, loadStyle} from './style.js'

export {parseStaticMap, type StaticMapInput} from './input.js'

export interface StaticMaps {
  /**
   * The image of a query (without the key) rendered before for the same map data, found without
   * parsing it; undefined when not cached or when it names a custom style (whose file may change).
   */
  cached(query: Record<string, unknown>): Rendered | undefined
  /**
   * The PNG for a parsed request, from the cache when an identical one was rendered for the same
   * map data; `query` (without the key) is remembered for `cached`. `remoteIcons`: the project's
   * `maps.remoteIcons` setting (http(s) marker icons).
   */
  render(input: StaticMapInput, query?: Record<string, unknown>, options?: {remoteIcons?: boolean}): Promise<Rendered & {cached: boolean}>
  /**
   * Loads the renderer (native canvas, fonts) and every region's drawing data now, when some region
   * can be drawn, so the first image after a start costs what any image over a new area costs.
   */
  warm(): Promise<void>
}

/** A rendered image and the view it shows (centre and zoom, also when fitted). */
export interface Rendered {
  png: Buffer
  etag: string
  view: View
}

/**
 * The static map renderer of a system: its map data, styles under `stylesDir`, marker images under
 * `markersDir`; finished images (`cacheBytes`) and base map tiles (`tileBytes`) kept in memory.
 */
export function createStaticMaps(map: MapData, options: {stylesDir: string; markersDir: string; cacheBytes?: number; tileBytes?: number; iconsFromAnyAddress?: boolean}): StaticMaps {
  // the renderer (a native module and fonts) loads on the first image, not with every CLI command
  let renderer: Promise<typeof import('./draw.js')> | undefined
  let tiles: import('./tiles.js').BaseTiles | undefined
  const cache = new ImageCache(options.cacheBytes ?? 64 * 1024 * 1024)
  const fetched = new Map()
  const fetch = remoteFetcher(options.iconsFromAnyAddress)
  const queryKey = (query: Record<string, unknown>) =>
    query.style === undefined || (typeof query.style === 'string' && query.style in BUILT_IN_STYLES) ? `${map.generation}|?${JSON.stringify(query)}` : undefined
  const load = () => (renderer ??= import('./draw.js'))
  return {
    async warm() {
      const data = drawingData(map, [-180, -90, 180, 90])
      const area = data.find((d) => d.areas.length)?.areas[0]
      if (!area) return
      // every font face, and one small throwaway image: the first real one then finds fonts, code and canvas warm
      const {draw, BaseTiles, warmFonts} = await load()
      warmFonts()
      const lon = (area[0] + area[2]) / 2, lat = (area[1] + area[3]) / 2
      const input = {width: 256, height: 256, center: [lon, lat] as [number, number], zoom: 15, scale: 1, style: 'service-default-v1', language: 'local',
        markers: [{color: '#000257', size: 'normal' as const, points: [lon, lat]}], paths: [{stroke: '#000257', width: 4, border: '#ffffff', borderWidth: 1, points: [lon - 0.001, lat, lon + 0.001, lat]}]}
      draw(new BaseTiles(map, 0), input, viewOf(input), loadStyle(input.style, options.stylesDir)!, new Map())
    },
    cached(query) {
      const key = queryKey(query)
      return key === undefined ? undefined : cache.get(key)
    },
    async render(input, query, {remoteIcons = false} = {}) {
      const loaded = loadStyle(input.style, options.stylesDir)
      if (!loaded) throw refuse.invalid('style', 'service-default-v1, service-light-v1, service-dark-v1 or the id of a style file in config/styles')
      const {draw, loadIcons, hasRemoteIcons, BaseTiles} = await load()
      // an image with icon URLs depends on the setting, so it is cached per setting and never by query alone
      const remote = hasRemoteIcons(input)
      const cacheKey = `${map.generation}|${loaded.version}|${remote ? `remote:${remoteIcons}|` : ''}${JSON.stringify(input)}`
      const alias = query && !remote ? queryKey(query) : undefined
      const hit = cache.get(cacheKey)
      if (hit) {
        if (alias) cache.set(alias, hit)
        return {...hit, cached: true}
      }
      tiles ??= new BaseTiles(map, options.tileBytes ?? 256 * 1024 * 1024)
      const icons = await loadIcons(input, {dir: options.markersDir, remote: remoteIcons, fetch, fetched})
      const view = viewOf(input)
      const png = draw(tiles, input, view, loaded, icons)
      const etag = `"${createHash('sha1').update(png).digest('base64url').slice(0, 20)}"`
      cache.set(cacheKey, {png, etag, view})
      if (alias) cache.set(alias, {png, etag, view})
      return {png, etag, view, cached: false}
    },
  }
}

