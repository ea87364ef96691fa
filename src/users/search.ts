import {z} from 'zod'
import {refuse} from '../errors.js'
import {degreesAround, haversine} from '../geofences/confidence.js'
import type {IsochroneSource} from '../geofences/geometry.js'
import {pointInRing} from '../osm/geom.js'
import type {Store} from '../store/db.js'
import {int, latLng, matchesMetadata, metadataFilters, num} from '../validate.js'
import type {UserRow} from './json.js'
import {usersJson} from './view.js'

export const SEARCH_MODES = ['car', 'truck', 'foot', 'bike'] as const
/** `radius` in metres without `mode` (spec), in minutes of travel with one (as isochrone geofences). */
export const USER_RADIUS = {m: {min: 100, max: 10_000, default: 1000}, minutes: {min: 1, max: 60, default: 10}}

/** `GET /v1/search/users`. */
export const userSearchQuery = z
  .object({
    near: latLng(),
    radius: num().optional(),
    mode: z.enum(SEARCH_MODES, {error: `must be one of ${SEARCH_MODES.join(', ')}`}).optional(),
    metadata: z.unknown().optional().transform(metadataFilters),
    limit: int(1, 100).default(10),
  })
  .superRefine((v, ctx) => {
    const r = v.mode ? USER_RADIUS.minutes : USER_RADIUS.m
    if (v.radius !== undefined && !(Number.isInteger(v.radius) && v.radius >= r.min && v.radius <= r.max)) {
      const what = v.mode ? `minutes of travel by ${v.mode}` : 'metres (with mode: minutes of travel, 1 to 60)'
      ctx.addIssue({code: 'custom', path: ['radius'], message: `integer from ${r.min} to ${r.max}, in ${what}`})
    }
  })
  .transform((v) => ({...v, radius: v.radius ?? (v.mode ? USER_RADIUS.minutes.default : USER_RADIUS.m.default)}))

export type UserSearch = z.output<typeof userSearchQuery>

/** Users whose last location lies in the box, from the `users_location` index (longitudes across ±180 wrap). */
function usersInBox(store: Store, live: boolean, minLng: number, minLat: number, maxLng: number, maxLat: number): UserRow[] {
  const ranges = [[minLng, maxLng], [minLng + 360, maxLng + 360], [minLng - 360, maxLng - 360]].filter(([a, b]) => b >= -180 && a <= 180)
  const sql = `SELECT * FROM users WHERE live = ? AND lat IS NOT NULL AND lat BETWEEN ? AND ? AND (${ranges.map(() => 'lng BETWEEN ? AND ?').join(' OR ')})`
  return store.sqlite.prepare(sql).all(live ? 1 : 0, minLat, maxLat, ...ranges.flat()) as UserRow[]
}

/**
 * Users of the environment whose last location is within `radius` metres of `near`, or with `mode`
 * within `radius` minutes of travel (inside the isochrone the routing engine draws), filtered by
 * metadata, nearest first (straight-line distance), as the Users API returns them.
 */
export async function searchUsers(store: Store, isochrones: IsochroneSource, live: boolean, q: UserSearch): Promise<Record<string, unknown>[]> {
  const [lng, lat] = q.near
  let rows: UserRow[]
  if (q.mode) {
    const ring = isochrones(q.near, q.mode, q.radius)
    if (!ring) throw refuse.invalid('near', `must be on an imported road network to search by minutes of travel (mode=${q.mode})`)
    const flat = ring.flat()
    let minX = Infinity, minY = Infinity, maxX = -Infinity, maxY = -Infinity
    for (const [x, y] of ring) [minX, minY, maxX, maxY] = [Math.min(minX, x), Math.min(minY, y), Math.max(maxX, x), Math.max(maxY, y)]
    rows = usersInBox(store, live, minX, minY, maxX, maxY).filter((u) => pointInRing(u.lng!, u.lat!, flat))
  } else {
    const [dLng, dLat] = degreesAround(q.radius, lat)
    rows = usersInBox(store, live, lng - dLng, lat - dLat, lng + dLng, lat + dLat).filter((u) => haversine(lng, lat, u.lng!, u.lat!) <= q.radius)
  }
  const filters = Object.entries(q.metadata)
  if (filters.length) rows = rows.filter((u) => matchesMetadata(u.metadata ? JSON.parse(u.metadata) : null, filters))
  const top = rows
    .map((u) => ({u, d: haversine(lng, lat, u.lng!, u.lat!)}))
    .sort((a, b) => a.d - b.d || (a.u.id < b.u.id ? -1 : 1))
    .slice(0, q.limit)
    .map(({u}) => u)
  return usersJson(store, top)
}
