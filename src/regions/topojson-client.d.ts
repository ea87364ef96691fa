// topojson-client ships no types; loc uses only `feature` on a GeometryCollection of polygons
declare module 'topojson-client' {
  export function feature(topology: unknown, object: unknown): {
    features: Array<{id?: string; properties: Record<string, string>; geometry: {type: 'Polygon' | 'MultiPolygon'; coordinates: number[][][] | number[][][][]} | null}>
  }
}
