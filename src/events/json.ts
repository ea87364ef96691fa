import type {Selectable} from 'kysely'
import type {EventTable} from '../store/schema.js'

export type EventRow = Selectable<EventTable>

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
