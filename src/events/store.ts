import type {Kysely} from 'kysely'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import {fetchPage, type Page, type PageQuery} from '../store/paging.js'
import type {Database} from '../store/schema.js'
import type {EventRow} from './json.js'

/** An event as a producer (track, trips, conversions) hands it over. */
export interface NewEvent {
  type: string
  /** The user's `_id` and `userId`, for filtering; the embedded `user` goes in `body`. */
  userRef?: string | null
  userId?: string | null
  /** When it happened on the client; defaults to server time. */
  createdAt?: string
  /** Everything else the API returns: `user`, `geofence`, `trip`, `location`, `name`, ... */
  body: Record<string, unknown>
}

/**
 * Writes events with `db` (a transaction when the caller's other writes must go with them, as
 * track's and the webhook outbox's do). `types` is the `events.types` setting: when not empty,
 * only those types are stored. Returns the rows stored, in order.
 */
export async function writeEvents(db: Kysely<Database>, live: boolean, events: NewEvent[], types: readonly string[] = []): Promise<EventRow[]> {
  const rows: EventRow[] = []
  for (const event of events) {
    if (types.length && !types.includes(event.type)) continue
    const actual = nowIso()
    rows.push({
      id: newId(),
      live: live ? 1 : 0,
      type: event.type,
      user_ref: event.userRef ?? null,
      user_id: event.userId ?? null,
      payload: JSON.stringify(event.body),
      created_at: event.createdAt ?? actual,
      actual_created_at: actual,
    })
  }
  if (rows.length) await db.insertInto('events').values(rows).execute()
  return rows
}

export async function findEvent(store: Store, live: boolean, id: string): Promise<EventRow | undefined> {
  return store.db.selectFrom('events').selectAll().where('live', '=', live ? 1 : 0).where('id', '=', id).executeTakeFirst()
}

export interface EventFilters {
  types?: string[]
  /** The user's `userId` or `_id`. */
  userId?: string
}

/** Newest `createdAt` first. */
export async function listEvents(store: Store, live: boolean, filters: EventFilters, page: Omit<PageQuery, 'updatedBefore' | 'updatedAfter'>): Promise<Page<EventRow>> {
  let q = store.db.selectFrom('events').selectAll().where('live', '=', live ? 1 : 0)
  if (filters.types?.length) q = q.where('type', 'in', filters.types)
  const userId = filters.userId
  if (userId !== undefined) q = q.where((eb) => eb.or([eb('user_id', '=', userId), eb('user_ref', '=', userId)]))
  return fetchPage(q, {limit: page.limit, createdBefore: page.createdBefore, createdAfter: page.createdAfter}, 'created_at')
}

export async function deleteEvent(store: Store, live: boolean, id: string): Promise<boolean> {
  const result = await store.db.deleteFrom('events').where('live', '=', live ? 1 : 0).where('id', '=', id).executeTakeFirst()
  return result.numDeletedRows > 0n
}

export type Verification = 'accept' | 'reject'

/**
 * Records the customer's verdict on an event (compat): `verification`, `verifiedAt`, and the
 * `verifiedPlace` when one is named. Undefined when there is no such event.
 */
export async function verifyEvent(store: Store, live: boolean, id: string, verification: Verification, verifiedPlaceId?: string): Promise<EventRow | undefined> {
  const row = await findEvent(store, live, id)
  if (!row) return undefined
  const payload = JSON.parse(row.payload) as Record<string, unknown>
  payload.verification = verification
  payload.verifiedAt = nowIso()
  if (verifiedPlaceId !== undefined) payload.verifiedPlace = {_id: verifiedPlaceId}
  else delete payload.verifiedPlace
  const updated = {...row, payload: JSON.stringify(payload)}
  await store.db.updateTable('events').set({payload: updated.payload}).where('id', '=', id).execute()
  return updated
}
