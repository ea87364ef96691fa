import {readBlob} from '../map/blob.js'
import type {MapData} from '../map/mapdata.js'
import {refuse} from '../errors.js'
import {type ModeRouter, Network, RegionRouting} from './engine.js'
import {EdgeNames, type RoadInfo} from './names.js'
import {type Mode, MODES} from './profile.js'
import type {Snap} from './snap.js'
import {EDGES_BLOB, ROUTE_BLOB_VERSION, modeBlob} from './stage.js'

/** How far (metres) an input location may lie from the nearest road the mode may use. */
export const MAX_SNAP_METERS = 1000

/** The routing engine of a region (its blobs viewed as typed arrays), or undefined without a road graph. */
export function regionRouting(map: MapData, region: string): RegionRouting | undefined {
  let missing = false
  const engine = map.engine(region, 'routing', ({blobFile, db}) => {
    const file = blobFile(EDGES_BLOB)
    if (!file) {
      missing = true
      return new RegionRouting(null as unknown as Network, () => {
        throw new Error('no routing blobs')
      })
    }
    const blob = readBlob(file, {kind: EDGES_BLOB, version: ROUTE_BLOB_VERSION})
    const net = new Network(blob)
    const table = EdgeNames.from(blob)
    let names = (edge: number) => table!.get(edge)
    if (!table) {
      const row = db.prepare('SELECT e.name, e.ref, e.maxspeed, a.highway FROM edges e LEFT JOIN edge_attrs a ON a.id = e.id WHERE e.id = ?')
      names = (edge: number) => row.get(edge + 1) as RoadInfo
    }
    return new RegionRouting(net, (k) => readBlob(blobFile(modeBlob(MODES[k]))!, {kind: modeBlob(MODES[k]), version: ROUTE_BLOB_VERSION}), names)
  })
  return missing || !engine?.net ? undefined : engine
}

export interface Located {
  region: RegionRouting
  router: ModeRouter
  snaps: Snap[]
}

/**
 * Snaps every location (`[lng, lat]`) for `mode` in the one region whose road graph reaches them
 * all. Refusals name `param`: a location too far from any road of the mode, or locations that lie
 * in imported regions whose graphs are not connected.
 */
export function locate(map: MapData, mode: Mode, points: [number, number][], param: string | ((i: number) => string), avoid = 0): Located {
  const name = (i: number) => (typeof param === 'string' ? param : param(i))
  const k = MODES.indexOf(mode)
  let bestCount = -1
  let firstMissing = 0
  for (const region of map.regions()) {
    const r = regionRouting(map, region.name)
    if (!r) continue
    const router = r.mode(k)
    const snaps: Snap[] = []
    let miss = -1
    for (let i = 0; i < points.length; i++) {
      const s = router.snap(points[i][0], points[i][1], MAX_SNAP_METERS, avoid)
      if (!s) {
        if (miss < 0) miss = i
        continue
      }
      snaps.push(s)
    }
    if (miss < 0) return {region: r, router, snaps}
    if (snaps.length > bestCount) {
      bestCount = snaps.length
      firstMissing = miss
    }
  }
  for (let i = 0; i < points.length; i++) {
    if (!anyRegionReaches(map, k, points[i])) throw refuse.invalid(name(i), `must lie within ${MAX_SNAP_METERS} m of a road open to ${mode} in an imported region`)
  }
  throw refuse.invalid(name(firstMissing), `must be reachable by ${mode} from the other locations: they lie in imported regions whose road graphs are not connected`)
}

function anyRegionReaches(map: MapData, k: number, p: [number, number]): boolean {
  return map.regions().some((region) => !!regionRouting(map, region.name)?.mode(k).snap(p[0], p[1], MAX_SNAP_METERS))
}
