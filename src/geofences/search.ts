import {z} from 'zod'
import type {Store} from '../store/db.js'
import {bool, int, latLng, list, matchesMetadata, metadataFilters} from '../validate.js'
import {haversine} from './confidence.js'
import {distanceTo, inForceAt} from './fence.js'
import {geofenceEngine} from './index.js'
import {geofenceJson} from './json.js'
import type {GeofenceRow} from './store.js'

/** Results a search may carry with their geometry (spec: more than 100 only with `includeGeometry=false`). */
export const SEARCH_WITH_GEOMETRY_MAX = 100

/** `GET /v1/search/geofences`. */
export const geofenceSearchQuery = z
  .object({
    near: latLng(),
    radius: int(1, 100_000).default(1000),
    limit: int(1, 1000).default(100),
    tags: list(z.string().max(256)).optional(),
    metadata: z.unknown().optional().transform(metadataFilters),
    includeGeometry: bool().default(true),
  })
  .superRefine((v, ctx) => {
    if (v.includeGeometry && v.limit > SEARCH_WITH_GEOMETRY_MAX) {
      ctx.addIssue({code: 'custom', path: ['limit'], message: `at most ${SEARCH_WITH_GEOMETRY_MAX} unless includeGeometry=false`})
    }
  })

export type GeofenceSearch = z.output<typeof geofenceSearchQuery>

/**
 * Enabled geofences of the environment (not past `disableAfter` or `deleteAfter`) within `radius` metres of `near` (distance to the edge, 0
 * inside), filtered by tags and metadata, nearest first (then nearest centre): candidates from the
 * geofence engine's R-tree, the resources read by id.
 */
export function searchGeofences(store: Store, live: boolean, q: GeofenceSearch): Record<string, unknown>[] {
  const [lng, lat] = q.near
  const tags = q.tags?.length ? new Set(q.tags) : null
  const filters = Object.entries(q.metadata)
  const found: {id: string; d: number; centre: number}[] = []
  const now = Date.now()
  for (const fence of geofenceEngine(store).near(live, lng, lat, q.radius)) {
    if (!inForceAt(fence, now)) continue
    if (tags && (fence.tag === null || !tags.has(fence.tag))) continue
    if (filters.length && !matchesMetadata(fence.summary.metadata as Record<string, unknown>, filters)) continue
    const d = distanceTo(fence, lng, lat)
    if (d <= q.radius) found.push({id: fence.id, d, centre: haversine(lng, lat, fence.lng, fence.lat)})
  }
  found.sort((a, b) => a.d - b.d || a.centre - b.centre)
  const top = found.slice(0, q.limit)
  if (!top.length) return []
  const rows = store.sqlite.prepare(`SELECT * FROM geofences WHERE id IN (${top.map(() => '?').join(',')})`).all(...top.map((f) => f.id)) as GeofenceRow[]
  const byId = new Map(rows.map((r) => [r.id, r]))
  return top.flatMap(({id}) => {
    const row = byId.get(id)
    if (!row) return []
    if (q.includeGeometry) return [geofenceJson(row)]
    const {geometry: _geometry, ...json} = geofenceJson({...row, geometry: 'null'})
    return [json]
  })
}
