import type {StaticMapInput} from './input.js'
import {PIN_HEIGHT} from './overlays.js'
import {type View, latOf, lonOf, worldX, worldY} from './projection.js'

const PADDING = 24
/** Zoom for a single location with nothing to fit. */
const SINGLE_ZOOM = 15
const MAX_FIT_ZOOM = 18

/**
 * The view of a request: `center` and `zoom` when given, else fitted to `bbox` or to every marker
 * and path point with padding (room for a pin above its tip), at the largest whole zoom that fits.
 */
export function viewOf(input: StaticMapInput): View {
  const {width, height} = input
  const pts: number[] = []
  if (input.bbox) pts.push(input.bbox[0], input.bbox[1], input.bbox[2], input.bbox[3])
  else {
    for (const m of input.markers) pts.push(...m.points)
    for (const p of input.paths) pts.push(...p.points)
  }
  if (input.center && input.zoom !== undefined) return {lon: input.center[0], lat: input.center[1], zoom: input.zoom, width, height}
  const top = input.markers.length && !input.bbox ? PIN_HEIGHT + 6 : PADDING
  const fits = (z: number, cx?: number, cy?: number) => {
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity
    for (let i = 0; i < pts.length; i += 2) {
      const x = worldX(pts[i], z), y = worldY(pts[i + 1], z)
      x0 = Math.min(x0, x); x1 = Math.max(x1, x); y0 = Math.min(y0, y); y1 = Math.max(y1, y)
    }
    if (cx !== undefined && cy !== undefined) {
      // around a fixed centre: the farther side decides
      const hw = Math.max(cx - x0, x1 - cx), hh = Math.max(cy - y0, y1 - cy)
      return {ok: 2 * hw <= width - 2 * PADDING && 2 * hh <= height - top - PADDING, x: cx, y: cy}
    }
    const ok = x1 - x0 <= width - 2 * PADDING && y1 - y0 <= height - top - PADDING
    // centred on the points, shifted down by half the extra room the pins need on top
    return {ok, x: (x0 + x1) / 2, y: (y0 + y1) / 2 - (top - PADDING) / 2}
  }
  let zoom = input.zoom
  if (zoom === undefined) {
    const single = pts.length === 2 || (pts.length > 0 && pts.every((v, i) => v === pts[i % 2]))
    zoom = 1
    const cap = single ? SINGLE_ZOOM : MAX_FIT_ZOOM
    for (let z = cap; z >= 1; z--) {
      const c = input.center ? fits(z, worldX(input.center[0], z), worldY(input.center[1], z)) : fits(z)
      if (c.ok) {
        zoom = z
        break
      }
    }
  }
  if (input.center) return {lon: input.center[0], lat: input.center[1], zoom, width, height}
  const c = fits(zoom)
  return {lon: lonOf(c.x, zoom), lat: latOf(c.y, zoom), zoom, width, height}
}
