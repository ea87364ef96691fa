import {mkdirSync, statSync} from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {Kysely, Migrator, SqliteDialect, type MigrationResultSet, type SqliteDatabase as KyselySqlite} from 'kysely'
import {migrations} from './migrations/index.js'
import type {Database} from './schema.js'

export interface Store {
  db: Kysely<Database>
  /** The raw connection, for transactions that must stay synchronous and for PRAGMAs. */
  sqlite: SqliteDatabase.Database
  file: string
  close(): Promise<void>
}

export const STORE_FILE = 'loc.db'

/** Opens (creating if needed) `<dataDir>/loc.db` in WAL mode and runs pending migrations. */
export async function openStore(dataDir: string, options: {migrate?: boolean} = {}): Promise<Store> {
  mkdirSync(dataDir, {recursive: true})
  const file = path.join(dataDir, STORE_FILE)
  const sqlite = new SqliteDatabase(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  sqlite.pragma('busy_timeout = 5000')
  const db = new Kysely<Database>({dialect: new SqliteDialect({database: reusingStatements(sqlite)})})
  const store: Store = {
    db,
    sqlite,
    file,
    async close() {
      await db.destroy()
    },
  }
  if (options.migrate !== false) {
    const result = await migrate(store)
    if (result.error) {
      await store.close()
      throw result.error
    }
  }
  return store
}

const STATEMENTS_MAX = 500

/**
 * The connection as kysely sees it, with prepared statements reused by SQL text. Kysely prepares
 * every query anew, and preparing cost as much as running: a 30-column geofence upsert spent 16 %
 * of its request in `prepare`. Safe because kysely runs each statement to completion at once
 * (`all`/`run`; we never stream). Bounded: the oldest statement goes when 500 are kept.
 */
function reusingStatements(sqlite: SqliteDatabase.Database): KyselySqlite {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return {
    prepare(text) {
      let statement = statements.get(text)
      if (!statement) {
        if (statements.size >= STATEMENTS_MAX) statements.delete(statements.keys().next().value!)
        statements.set(text, (statement = sqlite.prepare(text)))
      }
      return statement as ReturnType<KyselySqlite['prepare']>
    },
    close() {
      statements.clear()
      sqlite.close()
    },
  }
}

export async function migrate(store: Store): Promise<MigrationResultSet> {
  const migrator = new Migrator({db: store.db, provider: {getMigrations: async () => migrations}})
  return migrator.migrateToLatest()
}

export function storeSizeBytes(store: Store): number {
  let total = 0
  for (const suffix of ['', '-wal', '-shm']) {
    try {
      total += statSync(store.file + suffix).size
    } catch {
      // the WAL files exist only while a connection is open
    }
  }
  return total
}

/** Booleans live as 0/1 in SQLite. */
export const toInt = (value: boolean | undefined | null): number | null =>
  value === undefined || value === null ? null : value ? 1 : 0
export const toBool = (value: number | null | undefined): boolean | undefined =>
  value === null || value === undefined ? undefined : value === 1

const versions = new WeakMap<Store, {statement: {get(): unknown}; value: number; readAt: number}>()
/** How stale `dataVersion` may be: the pragma opens a read transaction, ~5 µs, too dear per request. */
const VERSION_TTL_MS = 50

/**
 * SQLite's `PRAGMA data_version`, re-read at most every 50 ms: it moves when another connection
 * (the CLI, another process) commits, never for this connection's own writes. Caches of hot rows
 * key on it, so another process's change (a revoked key, a setting) shows within 50 ms.
 */
export function dataVersion(store: Store): number {
  const now = Date.now()
  let entry = versions.get(store)
  if (!entry) versions.set(store, (entry = {statement: store.sqlite.prepare('PRAGMA data_version').pluck(), value: 0, readAt: -Infinity}))
  if (now - entry.readAt >= VERSION_TTL_MS) {
    entry.value = entry.statement.get() as number
    entry.readAt = now
  }
  return entry.value
}

/**
 * A per-store map of derived values (settings per environment, key identities), emptied when
 * another connection commits (`dataVersion` moves) or when this process's own write calls `clear`.
 * `max` bounds it: past that many entries it starts over.
 */
export function changeCache<K, V>(max = Infinity) {
  const caches = new WeakMap<Store, {version: number; entries: Map<K, V>}>()
  return {
    get(store: Store, key: K, load: () => V): V {
      const version = dataVersion(store)
      let cache = caches.get(store)
      if (!cache || cache.version !== version || cache.entries.size >= max) caches.set(store, (cache = {version, entries: new Map()}))
      let value = cache.entries.get(key)
      if (value === undefined) {
        value = load()
        // an absent value (an unknown key) is looked up again next time, never kept
        if (value !== undefined && value !== null) cache.entries.set(key, value)
      }
      return value
    },
    clear(store: Store): void {
      caches.delete(store)
    },
  }
}
