import type Database from 'better-sqlite3'
import KDBush from 'kdbush'
import type {Engine, MapData} from '../map/mapdata.js'
import {readBlob} from '../map/blob.js'
import {haversine} from '../osm/geom.js'
import {type FootprintParts, footprintParts} from './footprint.js'
import {PLACES_BLOB, PLACES_BLOB_VERSION, placePoints} from './stage.js'

const R = 6371008.8
const RAD = Math.PI / 180

/** Places of one region by position, loaded once per region generation (see MapData.engine). */
export class PlaceIndex implements Engine {
  /** kdbush item → its position in kdbush's sorted coords (kdbush returns items, keeps coords by position) */
  private readonly position: Uint32Array
  closed = false

  constructor(readonly points: KDBush, readonly ids: Uint32Array, readonly reach: Float32Array) {
    this.position = new Uint32Array(ids.length)
    for (let p = 0; p < points.ids.length; p++) this.position[points.ids[p]] = p
  }

  /** Ids (`places.id`) of the places within `radiusM` metres (haversine) of lng/lat. */
  near(lng: number, lat: number, radiusM: number): number[] {
    return this.nearItems(lng, lat, radiusM).items.map((i) => this.ids[i])
  }

  /** kdbush items within `radiusM` metres of lng/lat, with their distances. */
  private nearItems(lng: number, lat: number, radiusM: number): {items: number[]; metres: number[]} {
    // The exact bounding box of a spherical cap; queries across the antimeridian are not wrapped.
    const d = radiusM / R
    const dLat = d / RAD
    const s = Math.sin(d) / Math.cos(lat * RAD)
    const dLng = s >= 1 ? 360 : Math.asin(s) / RAD
    const eps = 1e-9
    const {coords} = this.points
    const items: number[] = [], metres: number[] = []
    for (const i of this.points.range(lng - dLng - eps, lat - dLat - eps, lng + dLng + eps, lat + dLat + eps)) {
      const p = this.position[i] * 2
      const m = haversine(lng, lat, coords[p], coords[p + 1])
      if (m <= radiusM) {
        items.push(i)
        metres.push(m)
      }
    }
    return {items, metres}
  }

  /**
   * Ids of the places a fix at lng/lat may be at: point places within `pointM`, and area places
   * within `searchM` whose footprint reaches the fix (its inside is then still to be tested).
   */
  at(lng: number, lat: number, pointM: number, searchM: number): number[] {
    const out: number[] = []
    const near = this.nearItems(lng, lat, searchM)
    for (let k = 0; k < near.items.length; k++) {
      const i = near.items[k], d = near.metres[k], reach = this.reach[i]
      if (reach === 0 ? d <= pointM : d <= reach) out.push(this.ids[i])
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
    const blob = file ? readBlob(file, {kind: PLACES_BLOB}) : undefined
    // a region imported before the stage, or by a build whose blob had no reaches: built from its database
    if (!blob || blob.version < PLACES_BLOB_VERSION) {
      const {points, ids, reach} = placePoints(db)
      return new PlaceIndex(points, ids, reach)
    }
    if (blob.version > PLACES_BLOB_VERSION) throw new Error(`${blob.file}: places version ${blob.version}; this build reads version ${PLACES_BLOB_VERSION}`)
    // kdbush reads its data from offset 0 of an ArrayBuffer of its own: one copy of that section.
    return new PlaceIndex(KDBush.from(blob.section('kdbush').slice().buffer), blob.array('ids', Uint32Array), blob.array('reach', Float32Array))
  })
}

const OSM_TYPES = 'nwr'
/** An OSM object as one exact double: id × 4 + type (ids stay far below 2^50). */
const osmKey = (type: string, id: number) => id * 4 + OSM_TYPES.indexOf(type)

/** A place's geometry in the imported map: its `location` and, for an area, its footprint. */
export interface PlaceGeometry {
  /** As /v1/search/places answers it (for an area, a point inside its footprint). */
  location: [number, number]
  /**
   * The area's outline as GeoJSON polygon coordinates, one entry per separate part, each
   * `[outer, ...holes]` (outer rings counter-clockwise, holes clockwise); null for a point place.
   */
  footprint: FootprintParts | null
}

/** One region's places by OSM id, sorted for binary search (the places table has no index on it). */
class PlacesById implements Engine {
  private readonly footprintOf: Database.Statement<[number], string | null>

  constructor(readonly keys: Float64Array, readonly lonLat: Float64Array, readonly rowIds: Uint32Array, db: Database.Database) {
    this.footprintOf = db.prepare<[number], string | null>('SELECT footprint FROM places WHERE id = ?').pluck()
  }

  /** The index of the place with this key, or -1. */
  find(key: number): number {
    let lo = 0, hi = this.keys.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (this.keys[mid] < key) lo = mid + 1
      else hi = mid
    }
    return this.keys[lo] === key ? lo : -1
  }

  location(i: number): [number, number] {
    return [this.lonLat[2 * i], this.lonLat[2 * i + 1]]
  }

  /** The footprint of the place at index i, read from the region's database (footprints are not held in memory). */
  footprint(i: number): FootprintParts | null {
    const text = this.footprintOf.get(this.rowIds[i])
    if (!text) return null
    return footprintParts(text)
  }

  close(): void {}
}

function placesById(map: MapData, region: string): PlacesById | undefined {
  return map.engine(region, 'places-by-id', ({db}) => {
    const n = db.prepare('SELECT count(*) FROM places').pluck().get() as number
    const keys = new Float64Array(n), lonLat = new Float64Array(2 * n), rowIds = new Uint32Array(n)
    let i = 0
    // osmKey in SQL, so that SQLite sorts (rows stream into the arrays instead of piling up in JS)
    for (const [key, lon, lat, id] of db.prepare("SELECT osm_id * 4 + instr('nwr', osm_type) - 1 AS k, lon, lat, id FROM places ORDER BY k").raw().iterate() as Iterable<[number, number, number, number]>) {
      keys[i] = key
      lonLat[2 * i] = lon
      lonLat[2 * i + 1] = lat
      rowIds[i] = id
      i++
    }
    return new PlacesById(keys, lonLat, rowIds, db)
  })
}

/** The first region's index of the place with this id (`n4449492349`, as /v1/search/places answers `_id`). */
function findPlace(map: MapData, placeId: string): {places: PlacesById; i: number; region: string} | null {
  const m = /^([nwr])([1-9]\d{0,14})$/.exec(placeId)
  if (!m) return null
  const key = osmKey(m[1], Number(m[2]))
  for (const region of map.regions()) {
    const places = placesById(map, region.name)
    const i = places?.find(key) ?? -1
    if (places && i >= 0) return {places, i, region: region.name}
  }
  return null
}

/** The place with this id's location and footprint; null when no region has it. */
export function placeGeometry(map: MapData, placeId: string): PlaceGeometry | null {
  const found = findPlace(map, placeId)
  return found && {location: found.places.location(found.i), footprint: found.places.footprint(found.i)}
}

/** The region and `places.id` of the place with this id; null when no region has it. */
export function placeRow(map: MapData, placeId: string): {region: string; id: number} | null {
  const found = findPlace(map, placeId)
  return found && {region: found.region, id: found.places.rowIds[found.i]}
}
