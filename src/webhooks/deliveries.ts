import {CompiledQuery} from 'kysely'
import {refuse} from '../errors.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import type {WebhookOutboxTable} from '../store/schema.js'
import {write} from '../store/write.js'
import {deliveriesOwed} from './signal.js'

export interface Delivery {
  id: number
  webhookId: string
  eventId: string
  /** The event's type; null once the event is gone (pruned). */
  eventType: string | null
  status: WebhookOutboxTable['status']
  attempts: number
  nextAttemptAt: string | null
  lastError: string | null
  createdAt: string
  deliveredAt: string | null
  replayOf: number | null
}

export interface DeliveryFilters {
  status?: WebhookOutboxTable['status']
  webhookId?: string
  limit?: number
}

/** The newest deliveries first, each with its event's type. */
export async function listDeliveries(store: Store, filters: DeliveryFilters = {}): Promise<Delivery[]> {
  let q = store.db.selectFrom('webhook_outbox as o').leftJoin('events as e', 'e.id', 'o.event_id')
    .selectAll('o').select('e.type as event_type').orderBy('o.id', 'desc').limit(filters.limit ?? 50)
  if (filters.status) q = q.where('o.status', '=', filters.status)
  if (filters.webhookId) q = q.where('o.webhook_id', '=', filters.webhookId)
  return (await q.execute()).map((r) => ({
    id: r.id, webhookId: r.webhook_id, eventId: r.event_id, eventType: r.event_type, status: r.status, attempts: r.attempts,
    nextAttemptAt: r.status === 'pending' || r.status === 'failed' ? r.next_attempt_at : null,
    lastError: r.last_error, createdAt: r.created_at, deliveredAt: r.delivered_at, replayOf: r.replay_of,
  }))
}

const REPLAY = `INSERT INTO webhook_outbox (webhook_id, event_id, live, status, attempts, next_attempt_at, created_at, replay_of)
  SELECT webhook_id, event_id, live, 'pending', 0, ?, ?, id FROM webhook_outbox WHERE id = ?`

/**
 * Sends deliveries again: each becomes a new pending delivery at the end of its webhook's queue
 * (the original keeps its history). `ids` are delivery ids; returns the new ones. A running
 * `loc serve` picks them up within its poll interval.
 */
export function replayDeliveries(store: Store, ids: readonly number[]): number[] {
  const now = nowIso()
  const created = write(store, (tx) => ids.map((id) => {
    if (!tx.run(CompiledQuery.raw(REPLAY, [now, now, id]))) throw refuse.notFound(`delivery ${id}`)
    return tx.get<{id: number}>(CompiledQuery.raw('SELECT last_insert_rowid() AS id', []))!.id
  }))
  deliveriesOwed(store)
  return created
}

/** The deliveries made since `since` (of one webhook, or all), oldest first, one per webhook and event. */
export async function deliveriesSince(store: Store, since: string, webhookId?: string): Promise<number[]> {
  let q = store.db.selectFrom('webhook_outbox').select((eb) => eb.fn.min('id').as('id'))
    .where('created_at', '>=', since).where('replay_of', 'is', null).groupBy(['webhook_id', 'event_id']).orderBy('id')
  if (webhookId) q = q.where('webhook_id', '=', webhookId)
  return (await q.execute()).map((r) => r.id as number)
}

/** The first delivery of an event to each webhook that was owed it. */
export async function deliveriesOfEvent(store: Store, eventId: string): Promise<number[]> {
  const rows = await store.db.selectFrom('webhook_outbox').select((eb) => eb.fn.min('id').as('id'))
    .where('event_id', '=', eventId).groupBy('webhook_id').orderBy('id').execute()
  return rows.map((r) => r.id as number)
}

/** Deliveries still owed (pending or failed), by webhook id. */
export async function owedByWebhook(store: Store): Promise<Map<string, number>> {
  const rows = await store.db.selectFrom('webhook_outbox').select(['webhook_id', (eb) => eb.fn.countAll<number>().as('n')])
    .where('status', 'in', ['pending', 'failed']).groupBy('webhook_id').execute()
  return new Map(rows.map((r) => [r.webhook_id, Number(r.n)]))
}
