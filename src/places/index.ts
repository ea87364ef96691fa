import KDBush from 'kdbush'
import type {Engine, MapData} from '../map/mapdata.js'
import {readBlob} from '../map/blob.js'
import {haversine} from '../osm/geom.js'
import {PLACES_BLOB, PLACES_BLOB_VERSION, placePoints} from './stage.js'

const R = 6371008.8
const RAD = Math.PI / 180

/** Places of one region by position, loaded once per region generation (see MapData.engine). */
export class PlaceIndex implements Engine {
  /** kdbush item → its position in kdbush's sorted coords (kdbush returns items, keeps coords by position) */
  private readonly at: Uint32Array
  closed = false

  constructor(readonly points: KDBush, readonly ids: Uint32Array) {
    this.at = new Uint32Array(ids.length)
    for (let p = 0; p < points.ids.length; p++) this.at[points.ids[p]] = p
  }

  /** Ids (`places.id`) of the places within `radiusM` metres (haversine) of lng/lat. */
  near(lng: number, lat: number, radiusM: number): number[] {
    // The exact bounding box of a spherical cap; queries across the antimeridian are not wrapped.
    const d = radiusM / R
    const dLat = d / RAD
    const s = Math.sin(d) / Math.cos(lat * RAD)
    const dLng = s >= 1 ? 360 : Math.asin(s) / RAD
    const eps = 1e-9
    const {coords} = this.points
    const out: number[] = []
    for (const i of this.points.range(lng - dLng - eps, lat - dLat - eps, lng + dLng + eps, lat + dLat + eps)) {
      const p = this.at[i] * 2
      if (haversine(lng, lat, coords[p], coords[p + 1]) <= radiusM) out.push(this.ids[i])
    }
    return out
  }

  close(): void {
    this.closed = true
  }
}

/**
 * The region's place index from its `places.bin`; regions imported before stages existed (no blob)
 * get one built from their database on first use.
 */
export function placeIndex(map: MapData, region: string): PlaceIndex | undefined {
  return map.engine(region, 'places', ({db, blobFile}) => {
    const file = blobFile(PLACES_BLOB)
    if (!file) {
      const {points, ids} = placePoints(db)
      return new PlaceIndex(points, ids)
    }
    const blob = readBlob(file, {kind: PLACES_BLOB, version: PLACES_BLOB_VERSION})
    // kdbush reads its data from offset 0 of an ArrayBuffer of its own: one copy of that section.
    return new PlaceIndex(KDBush.from(blob.section('kdbush').slice().buffer), blob.array('ids', Uint32Array))
  })
}
