import {createHash, randomBytes} from 'node:crypto'
import {refuse} from '../errors.js'
import {followed} from '../store/changes.js'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import {write} from '../store/write.js'

export type KeyType = 'publishable' | 'secret'
export type KeyEnv = 'test' | 'live'

export interface KeyRecord {
  id: string
  prefix: string
  type: KeyType
  env: KeyEnv
  createdAt: string
  revokedAt: string | null
  lastUsedAt: string | null
}

export interface KeyIdentity {
  id: string
  type: KeyType
  live: boolean
}

const KEY_PATTERN = /^prj_(test|live)_(pk|sk)_[0-9a-f]{40}$/
/** Characters of the random part kept in the listed prefix: enough to tell keys apart, useless to an attacker. */
const PREFIX_HEX = 8

export const hashKey = (key: string) => createHash('sha256').update(key).digest('hex')

/** Creates a key and returns it in clear: the only time it is ever shown (only its hash is stored). */
export function createKey(store: Store, type: KeyType, env: KeyEnv): {key: string; record: KeyRecord} {
  const key = `prj_${env}_${type === 'publishable' ? 'pk' : 'sk'}_${randomBytes(20).toString('hex')}`
  const row = {
    id: newId(),
    prefix: key.slice(0, key.length - 40 + PREFIX_HEX),
    hash: hashKey(key),
    type,
    live: env === 'live' ? 1 : 0,
    created_at: nowIso(),
    revoked_at: null,
    last_used_at: null,
  }
  write(store, (tx) => tx.run(store.db.insertInto('api_keys').values(row)))
  return {key, record: toRecord(row)}
}

export async function listKeys(store: Store): Promise<KeyRecord[]> {
  const rows = await store.db.selectFrom('api_keys').selectAll().orderBy('created_at').execute()
  return rows.map(toRecord)
}

/**
 * Revokes the one key whose listed prefix matches: the whole prefix, a longer string such as the
 * key itself, or a shorter unambiguous start of it.
 */
export async function revokeKey(store: Store, prefix: string): Promise<{key: KeyRecord; alreadyRevoked: boolean}> {
  const keys = await listKeys(store)
  const matches = keys.filter((k) => k.prefix.startsWith(prefix) || prefix.startsWith(k.prefix))
  if (matches.length === 0) throw refuse.noKeyMatches(prefix)
  if (matches.length > 1) throw refuse.ambiguousKeyPrefix(prefix, matches.length)
  const [key] = matches
  if (key.revokedAt) return {key, alreadyRevoked: true}
  const revokedAt = nowIso()
  write(store, (tx) => tx.run(store.db.updateTable('api_keys').set({revoked_at: revokedAt}).where('id', '=', key.id)))
  return {key: {...key, revokedAt}, alreadyRevoked: false}
}

type KeyRow = {id: string; type: KeyType; live: number; revoked_at: string | null}

/** Up to this many keys' identities are kept; past it the cache starts over. */
const IDENTITIES_MAX = 10_000

/** Known keys' identities in memory, emptied by any change to `api_keys` (keys change rarely). */
const identities = followed((store) => {
  const find = store.sqlite.prepare('SELECT id, type, live, revoked_at FROM api_keys WHERE hash = ?')
  const known = new Map<string, KeyIdentity>()
  return {
    kinds: ['api_keys'] as const,
    rebuild: () => known.clear(),
    apply: () => known.clear(),
    /** An unknown key is looked up again next time, never remembered. */
    get(key: string): KeyIdentity | null {
      let identity = known.get(key)
      if (identity) return identity
      if (!KEY_PATTERN.test(key)) return null
      const row = find.get(hashKey(key)) as KeyRow | undefined
      if (!row || row.revoked_at) return null
      if (known.size >= IDENTITIES_MAX) known.clear()
      known.set(key, (identity = {id: row.id, type: row.type, live: row.live === 1}))
      return identity
    },
  }
})

/**
 * The identity behind an `Authorization` value, or null for unknown and revoked keys. This runs on
 * every request: known keys come from memory (hashing and a lookup were a quarter of a trivial
 * request's CPU), the rest cost one prepared statement on an indexed hash.
 */
export function authenticateKey(store: Store, key: string): KeyIdentity | null {
  return identities(store).get(key)
}

function toRecord(row: {id: string; prefix: string; type: KeyType; live: number; created_at: string; revoked_at: string | null; last_used_at: string | null}): KeyRecord {
  return {
    id: row.id,
    prefix: row.prefix,
    type: row.type,
    env: row.live ? 'live' : 'test',
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
    lastUsedAt: row.last_used_at,
  }
}
