import {createHash} from 'node:crypto'
import {CompiledQuery, type Selectable} from 'kysely'
import type {Store} from '../store/db.js'
import type {EventTable} from '../store/schema.js'
import type {Tx} from '../store/write.js'
import type {EventRow} from './json.js'

/**
 * A piece of JSON that many events embed, stored once in `event_parts` under a key of its content
 * (migration 015): the geofence summaries in the user's `geofences`. At 100k geofences a user is
 * inside ~9, ~2 KB of each ~3 KB event: with them stored once, bench/track's store after a run
 * took 357 MB instead of 703 (events ~1 KB each), at the same tracks/s.
 */
export interface EventPart {
  readonly key: string
  readonly json: string
  /**
   * Known to be in `event_parts` (set once the write that stored it committed; parts are never
   * deleted). It holds for one store: whoever keeps a part keeps it per store (track keeps it on the
   * geofence, which belongs to one store's engine). Looking parts up in a Map of every key stored
   * instead cost ~3 µs a track at 100k geofences: a cache miss or two per lookup.
   */
  stored: boolean
}

/** An event's parts: their JSON, comma-joined, goes into its payload at `at`. */
export interface EventParts {
  at: number
  list: readonly EventPart[]
  /** The keys, comma-joined, as `events.parts` holds them. */
  keys: string
  /** The JSON, comma-joined. */
  json: string
}

/** `list`'s parts at `at`, `json` being their JSON comma-joined. */
export function eventParts(list: readonly EventPart[], at: number, json: string): EventParts {
  return {at, list, keys: list.map((p) => p.key).join(','), json}
}

// 96 bits of SHA-256: parts are never deleted, and at a billion of them a collision is ~1e-11 likely
const KEY_BYTES = 12

/** `json` as a part, keyed by its content (~3 µs: callers keep it, see `stored`). */
export function partOf(json: string): EventPart {
  return {key: createHash('sha256').update(json).digest().subarray(0, KEY_BYTES).toString('base64url'), json, stored: false}
}

/** Per store, parts read lately, by key: a page of events mostly embeds the same few. Bounded. */
const READ_MAX = 100_000
const read = new WeakMap<Store, Map<string, string>>()
const readOf = (store: Store) => read.get(store) ?? read.set(store, new Map()).get(store)!

function remember(map: Map<string, string>, key: string, json: string): void {
  if (map.size >= READ_MAX) map.clear()
  map.set(key, json)
}

const INSERT_PART = 'INSERT OR IGNORE INTO event_parts (key, json) VALUES (?, ?)'

/** Stores the parts not yet known to be stored, inside the caller's write. */
export function storeParts(tx: Tx, parts: readonly EventPart[]): void {
  const added = parts.filter((part) => !part.stored)
  if (!added.length) return
  for (const part of added) tx.run(CompiledQuery.raw(INSERT_PART, [part.key, part.json]))
  tx.afterCommit(() => {
    for (const part of added) part.stored = true
  })
}

/** `payload` with the parts' JSON spliced in at `at`. */
export const withPartsJson = (payload: string, at: number, json: string): string => payload.slice(0, at) + json + payload.slice(at)

const PARTS = 'SELECT key, json FROM event_parts WHERE key IN (SELECT value FROM json_each(?))'

/** An event as stored, its parts apart. */
export type StoredEvent = Selectable<EventTable>

/** A stored event as it is read: its parts put back into its payload. */
export function readEvent(store: Store, stored: StoredEvent): EventRow {
  const {parts, parts_at: at, ...row} = stored
  if (parts === null || at === null) return row
  const map = readOf(store)
  const keys = parts.split(',')
  const found = new Map<string, string>()
  const missing: string[] = []
  for (const key of keys) {
    const json = map.get(key)
    if (json === undefined) missing.push(key)
    else found.set(key, json)
  }
  if (missing.length) {
    for (const {key, json} of store.statement(PARTS).all(JSON.stringify(missing)) as EventPart[]) {
      found.set(key, json)
      remember(map, key, json)
    }
  }
  const json = keys.map((key) => {
    const part = found.get(key)
    if (part === undefined) throw new Error(`event ${row.id}: part ${key} is missing from event_parts`)
    return part
  })
  return {...row, payload: withPartsJson(row.payload, at, json.join(','))}
}
