import type {Selectable} from 'kysely'
import {toBool} from '../store/db.js'
import type {UserTable} from '../store/schema.js'

export type UserRow = Selectable<UserTable>

/**
 * The spec's User resource. Identity and the last update come from columns; what track derives
 * (`geofences`, `trip`, `place`, `country`, `state`, `dma`, `postalCode`, `beacons`, `fraud`,
 * `segments`, `topChains`) is kept as one JSON object in `context` and spread in as is (track
 * passes the object it just wrote instead of parsing it back).
 */
export function userJson(row: UserRow): Record<string, unknown> {
  return userJsonWith(row, row.context ? JSON.parse(row.context) : {})
}

export function userJsonWith(row: UserRow, context: Record<string, unknown>): Record<string, unknown> {
  return {
    _id: row.id,
    live: row.live === 1,
    userId: row.user_id,
    deviceId: row.device_id,
    ...(row.install_id === null ? {} : {installId: row.install_id}),
    description: row.description,
    metadata: row.metadata ? JSON.parse(row.metadata) : null,
    location: row.lng === null || row.lat === null ? null : {type: 'Point', coordinates: [row.lng, row.lat]},
    locationAccuracy: row.location_accuracy,
    foreground: toBool(row.foreground) ?? false,
    stopped: toBool(row.stopped) ?? false,
    deviceType: row.device_type,
    ...(row.device_os === null ? {} : {deviceOS: row.device_os}),
    ...(row.device_make === null ? {} : {deviceMake: row.device_make}),
    ...(row.device_model === null ? {} : {deviceModel: row.device_model}),
    ...(row.ip === null ? {} : {ip: row.ip}),
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    geofences: [],
    ...context,
  }
}

/** The short form trips and events carry: `{_id, userId, deviceId}`. */
export function userRefJson(row: Pick<UserRow, 'id' | 'user_id' | 'device_id'>): {_id: string; userId: string | null; deviceId: string | null} {
  return {_id: row.id, userId: row.user_id, deviceId: row.device_id}
}
