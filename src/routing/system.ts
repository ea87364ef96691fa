import type {IsochroneSource} from '../geofences/geometry.js'
import type {MapData} from '../map/mapdata.js'
import {MODES, type Mode} from './profile.js'
import {type Point, eta, isochrone} from './service.js'

/** What the rest of loc asks of routing (built once in the composition root, src/system.ts). */
export interface Routing {
  /** Free-flow travel time and road distance, or null where no imported road graph connects the points. */
  eta(from: Point, to: Point, mode: Mode): {seconds: number; meters: number} | null
  /** Rings for isochrone geofences. */
  isochrones: IsochroneSource
}

export function openRouting(map: MapData): Routing {
  return {
    eta: (from, to, mode) => eta(map, from, to, mode),
    isochrones: (center, mode, minutes) => ((MODES as readonly string[]).includes(mode) ? isochrone(map, center as Point, mode as Mode, minutes) : null),
  }
}
