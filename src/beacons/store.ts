import type {Store} from '../store/db.js'
import {duplicateBeacon} from './input.js'
import {newId, nowIso} from '../store/ids.js'
import {fetchPage, type Page, type PageQuery} from '../store/paging.js'
import {writeGrouped, writeUnique} from '../store/write.js'
import {beaconJson, type BeaconRow} from './json.js'

export type BeaconType = 'ibeacon' | 'eddystone'

/** A validated beacon body; identifiers not of `type` are ignored (and cleared on update). */
export interface BeaconInput {
  description: string
  tag?: string | null
  externalId?: string | null
  type: BeaconType
  uuid?: string
  major?: string
  minor?: string
  uid?: string
  instance?: string
  /** `[lng, lat]` */
  coordinates: [number, number]
  enabled: boolean
  metadata?: Record<string, string | number | boolean> | null
}

export type Written = {row: BeaconRow; created: boolean}

const env = (live: boolean) => (live ? 1 : 0)

export function columns(input: BeaconInput) {
  const ibeacon = input.type === 'ibeacon'
  return {
    description: input.description,
    type: input.type,
    uuid: ibeacon ? (input.uuid ?? null) : null,
    major: ibeacon ? (input.major ?? null) : null,
    minor: ibeacon ? (input.minor ?? null) : null,
    uid: ibeacon ? null : (input.uid ?? null),
    instance: ibeacon ? null : (input.instance ?? null),
    lng: input.coordinates[0],
    lat: input.coordinates[1],
    enabled: input.enabled ? 1 : 0,
    metadata: input.metadata ? JSON.stringify(input.metadata) : null,
  }
}

/** Creates a beacon; a `tag` + `externalId` that exists already is refused (409), not updated. */
export async function createBeacon(store: Store, live: boolean, input: BeaconInput): Promise<Written> {
  const now = nowIso()
  const row: BeaconRow = {
    id: newId(),
    live: env(live),
    tag: input.tag ?? null,
    external_id: input.externalId ?? null,
    ...columns(input),
    created_at: now,
    updated_at: now,
  }
  await writeUnique(store, (tx) => tx.run(store.db.insertInto('beacons').values(row)), duplicateBeacon)
  return {row, created: true}
}

/** Creates or updates the beacon with this `tag` + `externalId`, in one statement. */
export async function upsertBeaconByTag(store: Store, live: boolean, tag: string, externalId: string, input: BeaconInput): Promise<Written> {
  const now = nowIso()
  const values = columns(input)
  const row = (await writeGrouped(store, (tx) => tx.get(store.db.insertInto('beacons')
    .values({id: newId(), live: env(live), tag, external_id: externalId, ...values, created_at: now, updated_at: now})
    .onConflict((oc) => oc.columns(['live', 'tag', 'external_id']).where('external_id', 'is not', null).doUpdateSet({...values, updated_at: now}))
    .returningAll())))!
  return {row, created: row.created_at === now}
}

/** Updates the beacon with this `_id` (its `tag`/`externalId` too when given); undefined when there is none. */
export async function updateBeacon(store: Store, live: boolean, id: string, input: BeaconInput): Promise<Written | undefined> {
  const set = {
    ...columns(input),
    ...(input.tag === undefined ? {} : {tag: input.tag}),
    ...(input.externalId === undefined ? {} : {external_id: input.externalId}),
    updated_at: nowIso(),
  }
  const row = await writeUnique(store, (tx) => tx.get(store.db.updateTable('beacons').set(set)
    .where('live', '=', env(live)).where('id', '=', id)
    .returningAll()), duplicateBeacon)
  return row && {row, created: false}
}

export type BeaconRef = {id: string} | {tag: string; externalId: string}

export async function findBeacon(store: Store, live: boolean, ref: BeaconRef): Promise<BeaconRow | undefined> {
  let q = store.db.selectFrom('beacons').selectAll().where('live', '=', env(live))
  q = 'id' in ref ? q.where('id', '=', ref.id) : q.where('tag', '=', ref.tag).where('external_id', '=', ref.externalId)
  return q.executeTakeFirst()
}

export interface BeaconFilters {
  tag?: string
  externalId?: string
}

export function listBeacons(store: Store, live: boolean, filters: BeaconFilters, page: PageQuery): Page<BeaconRow> {
  let q = store.db.selectFrom('beacons').selectAll().where('live', '=', env(live))
  if (filters.tag !== undefined) q = q.where('tag', '=', filters.tag)
  if (filters.externalId !== undefined) q = q.where('external_id', '=', filters.externalId)
  return fetchPage(q, page, 'created_at')
}

const ENABLED_OF = 'SELECT * FROM beacons WHERE live = ? AND enabled = 1 AND id IN (SELECT value FROM json_each(?))'

/**
 * A user's beacons (`user.beacons` as stored) as they are now, in their order: one disabled or
 * deleted since is left out, an edited one shows its edit. No query when there are none.
 */
export function beaconsNow(store: Store, live: boolean, beacons: ReadonlyArray<{_id: string}> | undefined): Array<Record<string, unknown>> {
  if (!beacons?.length) return []
  const rows = store.statement(ENABLED_OF).all(env(live), JSON.stringify(beacons.map((b) => b._id))) as BeaconRow[]
  const byId = new Map(rows.map((row) => [row.id, row]))
  return beacons.flatMap((b) => {
    const row = byId.get(b._id)
    return row ? [beaconJson(row)] : []
  })
}

export async function deleteBeacon(store: Store, live: boolean, ref: BeaconRef): Promise<boolean> {
  const beacon = await findBeacon(store, live, ref)
  if (!beacon) return false
  return (await writeGrouped(store, (tx) => tx.run(store.db.deleteFrom('beacons').where('id', '=', beacon.id)))) > 0
}
