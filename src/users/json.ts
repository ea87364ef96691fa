import type {Selectable} from 'kysely'
import {beaconsNow} from '../beacons/store.js'
import {bySortKey} from '../geofences/fence.js'
import {geofenceEngine} from '../geofences/index.js'
import type {Store} from '../store/db.js'
import {toBool} from '../store/db.js'
import type {UserTable} from '../store/schema.js'

export type UserRow = Selectable<UserTable>

/**
 * The spec's User resource. Identity and the last update come from columns; what track derives
 * (`geofences`, `trip`, `place`, `country`, `state`, `dma`, `postalCode`, `beacons`, `fraud`,
 * `segments`, `topChains`) is kept as one JSON object in `context` and spread in as is, except
 * `geofences`: those of `users.presence`, rendered from the geofence engine as they are now (a
 * geofence deleted or disabled since is left out), and `beacons`, likewise read as they are now.
 * Rows written before presence moved into the user row carry them in `context`, as ids or (older
 * still) as objects.
 */
export function userJson(row: UserRow, store: Store): Record<string, unknown> {
  return usersJsonNow(store, [row])[0]
}

/**
 * `userJson` of each row, the beacons of them all read in one query per environment (a page of
 * users: one beacon query, not one per user with beacons).
 */
export function usersJsonNow(store: Store, rows: readonly UserRow[]): Record<string, unknown>[] {
  const contexts = rows.map((row) => (row.context ? JSON.parse(row.context) as Record<string, unknown> : {}))
  const beacons = beaconsOf(store, rows, contexts)
  // the engine is asked only for a user with geofences: asking catches it up with the change feed
  let engine: ReturnType<typeof geofenceEngine> | undefined
  return rows.map((row, i) => {
    const context = contexts[i]
    const fence = (id: string) => (engine ??= geofenceEngine(store)).get(row.live === 1, id)
    if (Array.isArray(context.geofences)) {
      context.geofences = context.geofences.flatMap((g: unknown) => (typeof g === 'string' ? (fence(g)?.summary ?? []) : [g]))
    } else if (row.presence) {
      const inside = (JSON.parse(row.presence) as Array<[string]>).flatMap(([id]) => fence(id) ?? [])
      context.geofences = inside.sort(bySortKey).map((f) => f.summary)
    }
    if (context.beacons) context.beacons = (context.beacons as StoredBeacon[]).flatMap((b) => beacons[row.live].get(b._id) ?? [])
    return userJsonWith(row, context)
  })
}

type StoredBeacon = {_id: string}

/** The beacons the users' contexts name, as they are now (beaconsNow: enabled ones only), by id, per environment (`live` 0 and 1). */
function beaconsOf(store: Store, rows: readonly UserRow[], contexts: Array<Record<string, unknown>>): Array<Map<string, Record<string, unknown>>> {
  const named = [new Set<string>(), new Set<string>()]
  contexts.forEach((context, i) => {
    if (context.beacons) for (const b of context.beacons as StoredBeacon[]) named[rows[i].live].add(b._id)
  })
  return named.map((ids, live) => new Map(beaconsNow(store, live === 1, [...ids].map((_id) => ({_id}))).map((json) => [json._id as string, json])))
}

/** What track keeps in `context` for itself, shown in no answer: when the user entered its `place`. */
export const PLACE_ENTERED_AT = 'placeEnteredAt'

const shown = (context: Record<string, unknown>) => {
  if (!(PLACE_ENTERED_AT in context)) return context
  const {[PLACE_ENTERED_AT]: _kept, ...rest} = context
  return rest
}

export function userJsonWith(row: UserRow, context: Record<string, unknown>): Record<string, unknown> {
  return {...userHead(row), geofences: [], ...shown(context)}
}

/**
 * `userJsonWith` as JSON text in two, around its geofences' JSON: the text up to the `[` of
 * `geofences`, and from its `]` on. Track puts the geofences' summaries in between, as their JSON
 * comma-joined (`summaryText`: each geofence serialised once, not once per track; at 100k
 * geofences a user is inside ~9 and serialising their summaries was a quarter of track's own
 * time), and stores each event's user without them (events/parts.ts). `context` has no `geofences`.
 */
export function userJsonAround(row: UserRow, context: Record<string, unknown>): [before: string, after: string] {
  const head = JSON.stringify(userHead(row))
  const tail = JSON.stringify(shown(context))
  return [`${head.slice(0, -1)},"geofences":[`, tail.length > 2 ? `],${tail.slice(1)}` : ']}']
}

function userHead(row: UserRow): Record<string, unknown> {
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
  }
}

/** The short form trips and events carry: `{_id, userId, deviceId}`. */
export function userRefJson(row: Pick<UserRow, 'id' | 'user_id' | 'device_id'>): {_id: string; userId: string | null; deviceId: string | null} {
  return {_id: row.id, userId: row.user_id, deviceId: row.device_id}
}
