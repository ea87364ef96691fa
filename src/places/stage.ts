import type Database from 'better-sqlite3'
import KDBush from 'kdbush'
import type {MapStage} from '../osm/stage.js'

/** The places point index: blob `places.bin`, kind version 1. */
export const PLACES_BLOB = 'places'
export const PLACES_BLOB_VERSION = 1

/**
 * A kdbush over every place's lon/lat (Float64, degrees) and, in a parallel array indexed like
 * kdbush's items, each item's `places.id`.
 */
export function placePoints(db: Database.Database): {points: KDBush; ids: Uint32Array} {
  const n = db.prepare('SELECT count(*) FROM places').pluck().get() as number
  const points = new KDBush(n, 64, Float64Array)
  const ids = new Uint32Array(n)
  for (const row of db.prepare('SELECT id, lon, lat FROM places').raw().iterate() as Iterable<[number, number, number]>) {
    ids[points.add(row[1], row[2])] = row[0]
  }
  return {points: points.finish(), ids}
}

/** Blob sections: `kdbush` (kdbush's own serialisation) and `ids` (Uint32 place ids). */
export const placesStage: MapStage = {
  name: 'places',
  build(ctx) {
    const {points, ids} = placePoints(ctx.db)
    ctx.writeBlob(PLACES_BLOB, {kdbush: points.data, ids}, PLACES_BLOB_VERSION)
  },
  verify(ctx) {
    const blob = ctx.readBlob(PLACES_BLOB, PLACES_BLOB_VERSION)
    const n = ctx.db.prepare('SELECT count(*) FROM places').pluck().get() as number
    const items = KDBush.from(blob.section('kdbush').slice().buffer).numItems
    const ids = blob.array('ids', Uint32Array).length
    if (items !== n || ids !== n) throw new Error(`${blob.file}: ${items} points and ${ids} ids for ${n} places`)
  },
}
