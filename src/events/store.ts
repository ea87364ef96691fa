import {refuse} from '../errors.js'
import type {MapData} from '../map/index.js'
import {placeNamed} from '../places/json.js'
import {getSettings} from '../project/settings.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {fetchMergedPage, fetchPage, mapPage, type Page, type PageQuery} from '../store/paging.js'
import {writeGrouped} from '../store/write.js'
import type {EventRow} from './json.js'
import {readEvent, type StoredEvent} from './parts.js'

const byId = (store: Store, live: boolean, id: string) => store.db.selectFrom('events').selectAll().where('live', '=', live ? 1 : 0).where('id', '=', id)

export async function findEvent(store: Store, live: boolean, id: string): Promise<EventRow | undefined> {
  const row = await byId(store, live, id).executeTakeFirst()
  return row && readEvent(store, row)
}

export interface EventFilters {
  types?: string[]
  /** The user's `userId` or `_id`. */
  userId?: string
}

const OWNER_USER_ID = 'SELECT user_id FROM users WHERE live = ? AND id = ?'

/**
 * Newest `createdAt` first. A `userId` filter matches the events whose user had that userId or that
 * `_id`: each event's user is indexed once (migration 014), by userId while logged in and by `_id`
 * while logged out, so an `_id` also reads the events its user row logged in as.
 */
export function listEvents(store: Store, live: boolean, filters: EventFilters, page: Omit<PageQuery, 'updatedBefore' | 'updatedAfter'>): Page<EventRow> {
  let q = store.db.selectFrom('events').selectAll().where('live', '=', live ? 1 : 0)
  if (filters.types?.length) q = q.where('type', 'in', filters.types)
  const bounds = {limit: page.limit, createdBefore: page.createdBefore, createdAfter: page.createdAfter}
  const userId = filters.userId
  const read = (page: Page<StoredEvent>) => mapPage(page, (row) => readEvent(store, row))
  if (userId === undefined) return read(fetchPage(q, bounds, 'created_at'))
  // a user row's userId, once set, never changes: its logged-in events all carry it
  const owner = (store.statement(OWNER_USER_ID).get(live ? 1 : 0, userId) as {user_id: string | null} | undefined)?.user_id
  return read(fetchMergedPage([
    q.where('user_id', '=', userId),
    q.where('user_id', 'is', null).where('user_ref', '=', userId),
    ...(owner && owner !== userId ? [q.where('user_id', '=', owner).where('user_ref', '=', userId)] : []),
  ], bounds, 'created_at'))
}

export async function deleteEvent(store: Store, live: boolean, id: string): Promise<boolean> {
  return (await writeGrouped(store, (tx) => tx.run(store.db.deleteFrom('events').where('live', '=', live ? 1 : 0).where('id', '=', id)))) > 0
}

export type Verification = 'accept' | 'reject'

/**
 * Records the customer's verdict on an event (compat): `verification`, `verifiedAt`, and the
 * `verifiedPlace` when one is named: the place as events carry it when `map` has it, refused when
 * `map` has regions and no such place, `{_id}` alone when no map is imported (nothing to check it
 * against). Undefined when there is no such event. Read and rewritten in one write, so two verdicts
 * at once never lose one another's change.
 */
export function verifyEvent(store: Store, live: boolean, id: string, verification: Verification, verifiedPlaceId?: string, map?: MapData): Promise<EventRow | undefined> {
  let verifiedPlace: Record<string, unknown> | undefined
  if (verifiedPlaceId !== undefined) {
    verifiedPlace = map?.regions().length ? placeNamed(map, verifiedPlaceId, getSettings(store, live)) ?? undefined : {_id: verifiedPlaceId}
    if (!verifiedPlace) return Promise.reject(refuse.invalid('verifiedPlaceId', 'must be the id of a place of the imported map (its _id in /v1/search/places, such as n4449492349)'))
  }
  return writeGrouped(store, (tx) => {
    const stored = tx.get(byId(store, live, id))
    if (!stored) return undefined
    const row = readEvent(store, stored)
    const payload = JSON.parse(row.payload) as Record<string, unknown>
    payload.verification = verification
    payload.verifiedAt = nowIso()
    if (verifiedPlace) payload.verifiedPlace = verifiedPlace
    else delete payload.verifiedPlace
    const updated = {...row, payload: JSON.stringify(payload)}
    // stored whole again: a verdict is rare, and the event's parts stay stored for others
    tx.run(store.db.updateTable('events').set({payload: updated.payload, parts: null, parts_at: null}).where('id', '=', id))
    return updated
  })
}
