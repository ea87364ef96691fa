import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {fetchPage, type Page, type PageQuery} from '../store/paging.js'
import {write} from '../store/write.js'
import type {EventRow} from './json.js'

export async function findEvent(store: Store, live: boolean, id: string): Promise<EventRow | undefined> {
  return store.db.selectFrom('events').selectAll().where('live', '=', live ? 1 : 0).where('id', '=', id).executeTakeFirst()
}

export interface EventFilters {
  types?: string[]
  /** The user's `userId` or `_id`. */
  userId?: string
}

/** Newest `createdAt` first. */
export function listEvents(store: Store, live: boolean, filters: EventFilters, page: Omit<PageQuery, 'updatedBefore' | 'updatedAfter'>): Page<EventRow> {
  let q = store.db.selectFrom('events').selectAll().where('live', '=', live ? 1 : 0)
  if (filters.types?.length) q = q.where('type', 'in', filters.types)
  const userId = filters.userId
  if (userId !== undefined) q = q.where((eb) => eb.or([eb('user_id', '=', userId), eb('user_ref', '=', userId)]))
  return fetchPage(q, {limit: page.limit, createdBefore: page.createdBefore, createdAfter: page.createdAfter}, 'created_at')
}

export function deleteEvent(store: Store, live: boolean, id: string): boolean {
  return write(store, (tx) => tx.run(store.db.deleteFrom('events').where('live', '=', live ? 1 : 0).where('id', '=', id))) > 0
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
  write(store, (tx) => tx.run(store.db.updateTable('events').set({payload: updated.payload}).where('id', '=', id)))
  return updated
}
