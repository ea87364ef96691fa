import {getSettings} from '../project/settings.js'
import {newId, nowIso} from '../store/ids.js'
import type {Tx} from '../store/write.js'
import {webhooksFor} from '../webhooks/registry.js'
import {deliveriesOwed} from '../webhooks/signal.js'
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
  /** `body` as JSON text when the producer already has it (track writes one user text into every event). */
  bodyText?: string
}

export interface RecordOptions {
  /**
   * Logged by the client (conversions): stored whatever `events.types` says, since that setting
   * chooses which events loc generates, and the caller is answered with the event it logged.
   */
  logged?: boolean
}

// SQLite binds at most 32,766 values per statement: events have 8 columns, deliveries 7
const EVENTS_PER_INSERT = 1000
const DELIVERIES_PER_INSERT = 1000

function* chunks<T>(items: readonly T[], size: number): Generator<readonly T[]> {
  for (let i = 0; i < items.length; i += size) yield items.slice(i, i + size)
}

/**
 * The one way events are stored. Inside the caller's write: applies `events.types` (when not empty,
 * only those generated types are kept), inserts the events, and writes one outbox row per enabled
 * webhook of the environment that wants each event, so an event and the deliveries it owes commit
 * together or not at all. Returns the rows stored, in order.
 */
export function recordEvents(tx: Tx, live: boolean, events: readonly NewEvent[], options: RecordOptions = {}): EventRow[] {
  const {store} = tx
  const types = options.logged ? [] : getSettings(store, live)['events.types']
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
      payload: event.bodyText ?? JSON.stringify(event.body),
      created_at: event.createdAt ?? actual,
      actual_created_at: actual,
    })
  }
  if (rows.length === 0) return rows
  for (const chunk of chunks(rows, EVENTS_PER_INSERT)) tx.run(store.db.insertInto('events').values(chunk))
  const deliveries = rows.flatMap((row) =>
    webhooksFor(store, live, row.type).map((webhook) => ({
      webhook_id: webhook.id, event_id: row.id, live: row.live, status: 'pending' as const, attempts: 0,
      next_attempt_at: row.actual_created_at, created_at: row.actual_created_at,
    })))
  if (deliveries.length) {
    for (const chunk of chunks(deliveries, DELIVERIES_PER_INSERT)) tx.run(store.db.insertInto('webhook_outbox').values(chunk))
    tx.afterCommit(() => deliveriesOwed(store))
  }
  return rows
}
