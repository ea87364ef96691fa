import {mkdirSync, statSync} from 'node:fs'
import path from 'node:path'
import SqliteDatabase from 'better-sqlite3'
import {Kysely, Migrator, SqliteDialect, type MigrationResultSet} from 'kysely'
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
  const db = new Kysely<Database>({dialect: new SqliteDialect({database: sqlite})})
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
