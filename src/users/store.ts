import type {Insertable} from 'kysely'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import {newestRowSql} from '../store/newest.js'
import {fetchPage, type Page, type PageQuery} from '../store/paging.js'
import {write, writeGrouped} from '../store/write.js'
import type {UserTable} from '../store/schema.js'
import type {UserRow} from './json.js'

/** The users table's columns, in its order (as `SELECT *` returns them). */
export const USER_COLUMNS = ['id', 'live', 'user_id', 'device_id', 'install_id', 'description', 'metadata', 'lng', 'lat', 'location_accuracy',
  'foreground', 'stopped', 'device_type', 'device_os', 'device_make', 'device_model', 'ip', 'context', 'created_at', 'updated_at', 'presence'] as const satisfies ReadonlyArray<keyof UserRow>
// every column of UserRow is listed: a column added to the table and not here fails to compile
const everyUserColumn: [Exclude<keyof UserRow, (typeof USER_COLUMNS)[number]>] extends [never] ? true : never = true
void everyUserColumn

// a track's user: the newest row of its userId or device (one lookup or two a track)
const newest = (index: string, where: string, group: string) => newestRowSql('users', USER_COLUMNS, index, where, group)

export const NEWEST_BY_USER_ID = newest('users_live_user_id', 'live = ? AND user_id = ?', 'user_id')
// INDEXED BY: left alone, SQLite walked users_live_updated newest first (all users) to find a device's newest row
export const NEWEST_BY_DEVICE = newest('users_live_device_id', 'live = ? AND device_id = ?', 'device_id')
/** The device's logged-out user, which a login adopts. */
export const NEWEST_LOGGED_OUT_BY_DEVICE = newest('users_live_device_id', 'live = ? AND device_id = ? AND user_id IS NULL', 'device_id')

export type NewUser = Partial<Omit<Insertable<UserTable>, 'live'>>

/** Writes a user row as track will (ids and timestamps filled in); tests and the track pipeline use it. */
export function insertUser(store: Store, live: boolean, fields: NewUser = {}): UserRow {
  const now = nowIso()
  const row: UserRow = {
    id: newId(),
    user_id: null,
    device_id: null,
    install_id: null,
    description: null,
    metadata: null,
    lng: null,
    lat: null,
    location_accuracy: null,
    foreground: null,
    stopped: null,
    device_type: null,
    device_os: null,
    device_make: null,
    device_model: null,
    ip: null,
    context: null,
    presence: null,
    created_at: now,
    updated_at: now,
    ...fields,
    live: live ? 1 : 0,
  }
  write(store, (tx) => tx.run(store.db.insertInto('users').values(row)))
  return row
}

/**
 * The user a reference names: `_id` first, then `userId`, then `deviceId` (the spec's three ways);
 * when several users share a `userId` or `deviceId`, the most recently updated.
 */
export async function findUser(store: Store, live: boolean, ref: string): Promise<UserRow | undefined> {
  const byId = await store.db.selectFrom('users').selectAll().where('live', '=', live ? 1 : 0).where('id', '=', ref).executeTakeFirst()
  return byId ?? findUserByIds(store, live, {userId: ref, deviceId: ref})
}

/** The newest user with this `userId`, else with this `deviceId` (each an indexed lookup). */
export async function findUserByIds(store: Store, live: boolean, ids: {userId?: string | null; deviceId?: string | null}): Promise<UserRow | undefined> {
  for (const [newest, value] of [[NEWEST_BY_USER_ID, ids.userId], [NEWEST_BY_DEVICE, ids.deviceId]] as const) {
    if (!value) continue
    const row = store.statement(newest).get(live ? 1 : 0, value) as UserRow | undefined
    if (row) return row
  }
  return undefined
}

export function listUsers(store: Store, live: boolean, page: PageQuery): Page<UserRow> {
  const query = store.db.selectFrom('users').selectAll().where('live', '=', live ? 1 : 0)
  return fetchPage(query, page, 'updated_at')
}

/**
 * Deletes the user the reference names (presence goes with it); false when there is none. Its
 * trips stay, linked to no user row: a trip with a `userId` then goes on with the next user of that
 * `userId`, as a trip created before its user tracked does.
 */
export async function deleteUser(store: Store, live: boolean, ref: string): Promise<boolean> {
  const user = await findUser(store, live, ref)
  if (!user) return false
  return writeGrouped(store, (tx) => {
    tx.run(store.db.updateTable('trips').set({user_ref: null}).where('user_ref', '=', user.id))
    return tx.run(store.db.deleteFrom('users').where('id', '=', user.id)) > 0
  })
}
