/**
 * An encoded polyline (Google's format, `precision` decimals) as lon, lat pairs, or null unless it
 * is one: characters `?` to `~` only, whole values (the last chunk of each without the continuation
 * bit, at most 7 chunks), latitude and longitude in pairs, every point within the world.
 * @mapbox/polyline's decode takes any text (`!!!` reads as two points by 0,0), so input is read here.
 */
export function decodePolyline(text: string, precision: 5 | 6): number[] | null {
  const factor = 10 ** precision
  const out: number[] = []
  let lat = 0, lng = 0, value = 0, shift = 0, values = 0
  for (let i = 0; i < text.length; i++) {
    const chunk = text.charCodeAt(i) - 63
    if (chunk < 0 || chunk > 63 || shift === 35) return null
    value += (chunk & 0x1f) * 2 ** shift
    shift += 5
    if (chunk >= 0x20) continue
    // zigzag: odd values are negative
    const delta = value % 2 ? -(value + 1) / 2 : value / 2
    value = shift = 0
    if (values++ % 2 === 0) {
      lat += delta
      continue
    }
    lng += delta
    if (Math.abs(lat) > 90 * factor || Math.abs(lng) > 180 * factor) return null
    out.push(lng / factor, lat / factor)
  }
  return shift || values % 2 || !values ? null : out
}
