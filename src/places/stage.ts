import type Database from 'better-sqlite3'
import KDBush from 'kdbush'
import {haversine} from '../osm/geom.js'
import type {MapStage} from '../osm/stage.js'
import {footprintParts} from './footprint.js'

/** The places point index: blob `places.bin`, kind version 2 (version 1 had no `reach`). */
export const PLACES_BLOB = 'places'
export const PLACES_BLOB_VERSION = 2

/** Metres from (lon, lat) to the farthest vertex of a GeoJSON Polygon or MultiPolygon's outer rings, rounded up. */
function reachOf(footprint: string, lon: number, lat: number): number {
  let far = 0
  for (const [outer] of footprintParts(footprint)) for (const [x, y] of outer) far = Math.max(far, haversine(lon, lat, x, y))
  return Math.ceil(far) + 1
}

/**
 * A kdbush over every place's lon/lat (Float64, degrees) and, in parallel arrays indexed like
 * kdbush's items, each item's `places.id` and its reach: 0 for a point place, else how far its
 * footprint reaches from its point (which lies inside it), in metres. A fix farther than that
 * cannot be inside the footprint, so tracking reads and parses only footprints that may hold it.
 */
export function placePoints(db: Database.Database): {points: KDBush; ids: Uint32Array; reach: Float32Array} {
  const n = db.prepare('SELECT count(*) FROM places').pluck().get() as number
  const points = new KDBush(n, 64, Float64Array)
  const ids = new Uint32Array(n)
  const reach = new Float32Array(n)
  for (const [id, lon, lat, footprint] of db.prepare('SELECT id, lon, lat, footprint FROM places').raw().iterate() as Iterable<[number, number, number, string | null]>) {
    const item = points.add(lon, lat)
    ids[item] = id
    if (footprint) reach[item] = reachOf(footprint, lon, lat)
  }
  return {points: points.finish(), ids, reach}
}

/** Blob sections: `kdbush` (kdbush's own serialisation), `ids` (Uint32 place ids), `reach` (Float32 metres). */
export const placesStage: MapStage = {
  name: 'places',
  version: 2,
  build(ctx) {
    const {points, ids, reach} = placePoints(ctx.db)
    ctx.writeBlob(PLACES_BLOB, {kdbush: points.data, ids, reach}, PLACES_BLOB_VERSION)
  },
  verify(ctx) {
    const blob = ctx.readBlob(PLACES_BLOB, PLACES_BLOB_VERSION)
    const n = ctx.db.prepare('SELECT count(*) FROM places').pluck().get() as number
    const items = KDBush.from(blob.section('kdbush').slice().buffer).numItems
    const ids = blob.array('ids', Uint32Array).length
    const reach = blob.array('reach', Float32Array).length
    if (items !== n || ids !== n || reach !== n) throw new Error(`${blob.file}: ${items} points, ${ids} ids and ${reach} reaches for ${n} places`)
  },
}
