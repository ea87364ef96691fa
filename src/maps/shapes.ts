import type {Coords} from '../osm/geom.js'

/**
 * Drawing geometries as stored in `maps_shapes.geometry`: one Int32 blob per shape,
 * `[partCount, points of part 0, points of part 1, ..., lon0, lat0, lon1, lat1, ...]` with
 * coordinates in 1e-7 degrees. Parts are the lines of a multi-line, or the rings of (multi)polygons,
 * which are filled even-odd so holes need no nesting.
 */
export function encodeParts(parts: Coords[]): Buffer {
  let n = 1 + parts.length
  for (const p of parts) n += p.length
  const out = new Int32Array(n)
  out[0] = parts.length
  let k = 1 + parts.length
  parts.forEach((p, i) => {
    out[1 + i] = p.length / 2
    for (let j = 0; j < p.length; j++) out[k++] = Math.round(p[j] * 1e7)
  })
  return Buffer.from(out.buffer, out.byteOffset, out.byteLength)
}

/** A stored geometry viewed without copying: `parts[i]` points, coordinates in 1e-7 degrees. */
export interface Parts {
  counts: Int32Array
  coords: Int32Array
}

export function decodeParts(blob: Buffer): Parts {
  // SQLite blobs arrive as fresh Buffers, which may not be 4-byte aligned inside node's pool
  const aligned = blob.byteOffset % 4 === 0 ? blob : Buffer.from(blob)
  const all = new Int32Array(aligned.buffer, aligned.byteOffset, aligned.byteLength / 4)
  const n = all[0]
  return {counts: all.subarray(1, 1 + n), coords: all.subarray(1 + n)}
}
