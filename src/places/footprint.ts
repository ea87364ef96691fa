/** A place's footprint as its parts, each `[outer, ...holes]` (GeoJSON rings of [lon, lat]). */
export type FootprintParts = [number, number][][][]

/** The parts of a `places.footprint` (GeoJSON Polygon or MultiPolygon text). */
export function footprintParts(text: string): FootprintParts {
  const geometry = JSON.parse(text) as {type: 'Polygon'; coordinates: [number, number][][]} | {type: 'MultiPolygon'; coordinates: FootprintParts}
  return geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
}
