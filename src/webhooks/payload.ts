import {type EventRow, eventJson} from '../events/json.js'

/** Events of one user in a row, at most this many per request, for a batch webhook (compat). */
export const BATCH_SIZE = 5

/**
 * The body of one request: `{event, user}` for one event, `{events, user}` for a batch (events of
 * one user, in order). `user` is the user as the last event saw it. Every event carries its `_id`,
 * which receivers use to drop the duplicates at-least-once delivery can bring.
 */
export function deliveryBody(rows: readonly EventRow[], batch: boolean): string {
  const events = rows.map(eventJson)
  const user = (events[events.length - 1].user as unknown) ?? null
  return JSON.stringify(batch ? {events, user} : {event: events[0], user})
}

/** A sample event for `loc webhooks test`: what a conversion looks like, marked as a test. */
export function sampleBody(live: boolean, batch: boolean): string {
  const now = new Date().toISOString()
  const row: EventRow = {
    id: '000000000000000000000000', live: live ? 1 : 0, type: 'webhook.test', user_ref: null, user_id: 'loc-test-user',
    payload: JSON.stringify({user: {_id: '000000000000000000000000', userId: 'loc-test-user'}, name: 'webhook test', metadata: {test: true}}),
    created_at: now, actual_created_at: now,
  }
  return deliveryBody([row], batch)
}
