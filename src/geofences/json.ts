import type {GeofenceRow} from './store.js'

/**
 * The spec's Geofence resource. Always present: identity, timestamps, `description`, `type`, the
 * three geometry fields, `enabled` and `metadata` (`{}` when none); every other field only when set.
 */
export function geofenceJson(row: GeofenceRow): Record<string, unknown> {
  return fields(row, JSON.parse(row.geometry))
}

const GEOMETRY_MARK = '\u0000geometry'
const MARKED = `"geometry":${JSON.stringify(GEOMETRY_MARK)}`

/**
 * The same resource as JSON text with the stored geometry text spliced in unparsed: a list of
 * 1,000 circles would otherwise parse and re-serialise 65,000 positions. The marked key can only
 * match the top-level `geometry` (inside JSON strings quotes are escaped, and it precedes `metadata`).
 */
export function geofenceJsonText(row: GeofenceRow): string {
  return JSON.stringify(fields(row, GEOMETRY_MARK)).replace(MARKED, () => `"geometry":${row.geometry}`)
}

function fields(row: GeofenceRow, geometry: unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {
    _id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    live: row.live === 1,
    ...(row.tag === null ? {} : {tag: row.tag}),
    ...(row.external_id === null ? {} : {externalId: row.external_id}),
    description: row.description,
    type: row.type,
    geometry,
    geometryCenter: {type: 'Point', coordinates: [row.center_lng, row.center_lat]},
    geometryRadius: row.radius,
    enabled: row.enabled === 1,
    metadata: row.metadata === null ? {} : JSON.parse(row.metadata),
  }
  if (row.mode !== null) out.mode = row.mode
  if (row.user_id !== null) out.userId = row.user_id
  if (row.user_ids !== null) out.userIds = row.user_ids
  if (row.ip !== null) out.ip = row.ip
  if (row.trip_approaching_threshold !== null) out.tripApproachingThreshold = row.trip_approaching_threshold
  if (row.dwell_threshold !== null) out.dwellThreshold = row.dwell_threshold
  if (row.stop_detection !== null) out.stopDetection = row.stop_detection === 1
  if (row.operating_hours !== null) out.operatingHours = JSON.parse(row.operating_hours)
  if (row.disable_after !== null) out.disableAfter = row.disable_after
  if (row.delete_after !== null) out.deleteAfter = row.delete_after
  return out
}
