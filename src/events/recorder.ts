import {CompiledQuery} from 'kysely'
import {getSettings} from '../project/settings.js'
import {newId, nowIso} from '../store/ids.js'
import type {Tx} from '../store/write.js'
import {webhooksFor} from '../webhooks/registry.js'
import {deliveriesOwed} from '../webhooks/signal.js'
import type {EventRow} from './json.js'
import {type EventParts, storeParts, withPartsJson} from './parts.js'

/**
 * An event as a producer (track, trips, conversions) hands it over: everything else the API returns
 * (`user`, `geofence`, `trip`, `location`, `name`, ...) as `body`, or as `bodyText` when the
 * producer already has it as JSON (track writes one user text into every event), less the JSON of
 * `parts` (the user's geofences), which is stored once for all events (parts.ts).
 */
export type NewEvent = EventHead & ({body: Record<string, unknown>} | {bodyText: string; parts?: EventParts})

interface EventHead {
  type: string
  /** The user's `_id` and `userId`, for filtering; the embedded `user` goes in the body. */
  userRef?: string | null
  userId?: string | null
  /** When it happened on the client; defaults to server time. */
  createdAt?: string
}

export interface RecordOptions {
  /**
   * Logged by the client (conversions): stored whatever `events.types` says, since that setting
   * chooses which events loc generates, and the caller is answered with the event it logged.
   */
  logged?: boolean
}

// One prepared statement run per row: a track at a busy spot stores dozens of events, and building
// a multi-row INSERT through the query builder cost more than running the rows
const INSERT_EVENT = `INSERT INTO events (id, live, type, user_ref, user_id, payload, created_at, actual_created_at, parts, parts_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`
const INSERT_DELIVERY = `INSERT INTO webhook_outbox (webhook_id, event_id, live, status, attempts, next_attempt_at, created_at)
  VALUES (?, ?, ?, 'pending', 0, ?, ?)`

/**
 * The one way events are stored. Inside the caller's write: applies `events.types` (when not empty,
 * only those generated types are kept), inserts the events, and writes one outbox row per enabled
 * webhook of the environment that wants each event, so an event and the deliveries it owes commit
 * together or not at all. Returns the events stored, in order, as they are read (parts in place).
 */
export function recordEvents(tx: Tx, live: boolean, events: readonly NewEvent[], options: RecordOptions = {}): EventRow[] {
  const {store} = tx
  const types = options.logged ? [] : getSettings(store, live)['events.types']
  const rows: EventRow[] = []
  let owed = false
  // a track's events share one user and so one set of parts
  let partsStored: EventParts | undefined
  for (const event of events) {
    if (types.length && !types.includes(event.type)) continue
    const actual = nowIso()
    const row: EventRow = {
      id: newId(),
      live: live ? 1 : 0,
      type: event.type,
      user_ref: event.userRef ?? null,
      user_id: event.userId ?? null,
      payload: 'bodyText' in event ? event.bodyText : JSON.stringify(event.body),
      created_at: event.createdAt ?? actual,
      actual_created_at: actual,
    }
    const parts = 'parts' in event && event.parts?.list.length ? event.parts : undefined
    if (parts && parts !== partsStored) storeParts(tx, (partsStored = parts).list)
    tx.run(CompiledQuery.raw(INSERT_EVENT, [row.id, row.live, row.type, row.user_ref, row.user_id, row.payload, row.created_at, row.actual_created_at,
      parts?.keys ?? null, parts?.at ?? null]))
    for (const webhook of webhooksFor(store, live, row.type)) {
      tx.run(CompiledQuery.raw(INSERT_DELIVERY, [webhook.id, row.id, row.live, row.actual_created_at, row.actual_created_at]))
      owed = true
    }
    if (parts) row.payload = withPartsJson(row.payload, parts.at, parts.json)
    rows.push(row)
  }
  if (owed) tx.afterCommit(() => deliveriesOwed(store))
  return rows
}
