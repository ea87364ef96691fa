/** Web Mercator in pixels of a 256-pixel tile at zoom `z`. */
export const TILE = 256
export const MAX_LAT = 85.0511287798

export function worldX(lon: number, z: number): number {
  return ((lon + 180) / 360) * TILE * 2 ** z
}

export function worldY(lat: number, z: number): number {
  const phi = (Math.max(-MAX_LAT, Math.min(MAX_LAT, lat)) * Math.PI) / 180
  return ((1 - Math.log(Math.tan(phi) + 1 / Math.cos(phi)) / Math.PI) / 2) * TILE * 2 ** z
}

export function lonOf(x: number, z: number): number {
  return (x / (TILE * 2 ** z)) * 360 - 180
}

export function latOf(y: number, z: number): number {
  const n = Math.PI - (2 * Math.PI * y) / (TILE * 2 ** z)
  return (180 / Math.PI) * Math.atan(Math.sinh(n))
}

/** What the image shows: its centre, zoom and size in CSS pixels. */
export interface View {
  lon: number
  lat: number
  zoom: number
  width: number
  height: number
}

/**
 * The view's pixel transform: `x(lon)`, `y(lat)` in image pixels, the world pixel of the image's
 * top-left corner (`ox`, `oy`, on whole device pixels at `scale`, so tiles and overlays line up
 * exactly) and the box it covers.
 */
export function viewport(v: View, scale = 1) {
  const ox = Math.round((worldX(v.lon, v.zoom) - v.width / 2) * scale) / scale
  const oy = Math.round((worldY(v.lat, v.zoom) - v.height / 2) * scale) / scale
  const box: [number, number, number, number] = [lonOf(ox, v.zoom), latOf(oy + v.height, v.zoom), lonOf(ox + v.width, v.zoom), latOf(oy, v.zoom)]
  return {
    x: (lon: number) => worldX(lon, v.zoom) - ox,
    y: (lat: number) => worldY(lat, v.zoom) - oy,
    ox,
    oy,
    box,
  }
}
