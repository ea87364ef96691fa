import {statSync} from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {Kysely, Migrator, SqliteDialect, type MigrationResultSet, type SqliteDatabase as KyselySqlite} from 'kysely'
import {makeDataDir} from '../data-dir.js'
import {type ChangeFeed, createChangeFeed} from './changes.js'
import {migrations} from './migrations/index.js'
import type {Database} from './schema.js'
import {BUSY_TIMEOUT_MS, lockedWhile} from './write.js'

export interface Store {
  /** Kysely for reads, and for building the SQL that `write` runs. Executing a write or a transaction through it throws. */
  db: Kysely<Database>
  /** The raw connection, for PRAGMAs and prepared reads. Transactions go through `write` (write.ts) only. */
  sqlite: SqliteDatabase.Database
  file: string
  /** Changes to followed tables, from this process and every other (changes.ts). */
  feed: ChangeFeed
  /** A prepared statement for this SQL text, reused (see `statementCache`). */
  statement(text: string): SqliteDatabase.Statement
  close(): Promise<void>
}

export const STORE_FILE = 'loc.db'

const CACHE_KIB = 8192

/** Opens (creating if needed, the data directory too, or refusing it: src/data-dir.ts) `<dataDir>/loc.db` in WAL mode and runs pending migrations. */
export async function openStore(dataDir: string, options: {migrate?: boolean} = {}): Promise<Store> {
  makeDataDir(dataDir)
  const file = path.join(dataDir, STORE_FILE)
  const sqlite = new SqliteDatabase(file)
  sqlite.pragma('journal_mode = WAL')
  sqlite.pragma('synchronous = NORMAL')
  sqlite.pragma('foreign_keys = ON')
  // A small page cache: every commit that split a b-tree page walks all of it (SQLite moves split
  // pages through a page number past 1 GB, and the commit's truncation of the cache to the file's
  // size then visits every cached page): ~5 µs a track at 100k geofences with 64 MB, ~0.8 with 8.
  // No memory map (mmap_size): it cost more than the reads it saved (bench/track at 100k: 18 %
  // fewer tracks/s with 2 workers, 6 % with one)
  sqlite.pragma(`cache_size = -${CACHE_KIB}`)
  sqlite.pragma(`busy_timeout = ${BUSY_TIMEOUT_MS}`)
  const statement = statementCache(sqlite)
  if (options.migrate !== false) {
    const result = await migrate(sqlite)
    if (result.error) {
      sqlite.close()
      throw result.error
    }
  }
  const db = new Kysely<Database>({dialect: new SqliteDialect({database: readsOnly(sqlite, statement)})})
  const store: Store = {
    db,
    sqlite,
    file,
    feed: undefined!,
    statement,
    async close() {
      await db.destroy()
    },
  }
  store.feed = createChangeFeed(store)
  return store
}

const STATEMENTS_MAX = 500

/**
 * Prepared statements reused by SQL text. Kysely prepares every query anew, and preparing cost as
 * much as running: a 30-column geofence upsert spent 16 % of its request in `prepare`. Safe because
 * every statement runs to completion at once (`all`/`run`; we never stream). Bounded: the oldest
 * statement goes when 500 are kept.
 */
function statementCache(sqlite: SqliteDatabase.Database): (text: string) => SqliteDatabase.Statement {
  const statements = new Map<string, SqliteDatabase.Statement>()
  return (text) => {
    let statement = statements.get(text)
    if (!statement) {
      if (statements.size >= STATEMENTS_MAX) statements.delete(statements.keys().next().value!)
      statements.set(text, (statement = sqlite.prepare(text)))
    }
    return statement
  }
}

const TRANSACTION_CONTROL = /^\s*(begin|commit|end|rollback|savepoint|release)\b/i

/**
 * The connection as kysely sees it: reads only. A kysely transaction and a synchronous one on the
 * same connection nest (the inner becomes a savepoint and is rolled back with the outer), so every
 * write goes through `write` (write.ts) and kysely is refused the rest.
 */
function readsOnly(sqlite: SqliteDatabase.Database, statement: (text: string) => SqliteDatabase.Statement): KyselySqlite {
  return {
    prepare(text) {
      if (TRANSACTION_CONTROL.test(text)) throw new Error('transactions go through write() (src/store/write.ts), never through kysely')
      const prepared = statement(text)
      if (!prepared.readonly) throw new Error(`writes go through write() (src/store/write.ts): ${text.slice(0, 60)}`)
      return prepared as ReturnType<KyselySqlite['prepare']>
    },
    close() {
      sqlite.close()
    },
  }
}

/** Whether some migration has not run on this store (read without a lock: most opens find none). */
function pending(sqlite: SqliteDatabase.Database): boolean {
  const table = sqlite.prepare("SELECT 1 FROM sqlite_master WHERE type = 'table' AND name = 'kysely_migration'").get()
  if (!table) return true
  const done = new Set(sqlite.prepare('SELECT name FROM kysely_migration').pluck().all() as string[])
  return Object.keys(migrations).some((name) => !done.has(name))
}

/**
 * Runs pending migrations on their own kysely, the one place allowed DDL and kysely transactions,
 * in one transaction holding the write lock: kysely's migration lock does nothing on SQLite, so two
 * processes opening a new store at once both ran the first migration (`table already exists`); the
 * second now waits, then finds nothing to do. A failing migration leaves the store as it was.
 */
export async function migrate(sqlite: SqliteDatabase.Database): Promise<MigrationResultSet> {
  if (!pending(sqlite)) return {results: []}
  const db = new Kysely<unknown>({dialect: new SqliteDialect({database: {prepare: (text) => sqlite.prepare(text) as ReturnType<KyselySqlite['prepare']>, close() {}}})})
  try {
    return await lockedWhile(sqlite, () => new Migrator({db, provider: {getMigrations: async () => migrations}}).migrateToLatest(), (result) => !result.error)
  } finally {
    await db.destroy()
  }
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
