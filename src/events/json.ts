import type {Selectable} from 'kysely'
import type {EventTable} from '../store/schema.js'

/** An event as it is read: its whole payload (events/parts.ts put its parts back). */
export type EventRow = Omit<Selectable<EventTable>, 'parts' | 'parts_at'>

/** The spec's Event resource: the stored payload under the common fields. */
export function eventJson(row: EventRow): Record<string, unknown> {
  return {
    _id: row.id,
    createdAt: row.created_at,
    actualCreatedAt: row.actual_created_at,
    live: row.live === 1,
    type: row.type,
    ...(JSON.parse(row.payload) as Record<string, unknown>),
  }
}

/**
 * `eventJson(row)` as text, the stored payload spliced in unparsed: a track at a busy spot answers
 * dozens of events that each embed the user, and parsing them back only to serialise them again
 * cost more than the rest of the answer.
 */
export function eventJsonText(row: EventRow): string {
  const head = `{"_id":"${row.id}","createdAt":${JSON.stringify(row.created_at)},"actualCreatedAt":"${row.actual_created_at}","live":${row.live === 1},"type":${JSON.stringify(row.type)}`
  return row.payload === '{}' ? `${head}}` : `${head},${row.payload.slice(1)}`
}
