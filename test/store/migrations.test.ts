import {rmSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {createKey, listKeys} from '../../src/project/keys.js'
import path from 'node:path'
import Database from 'better-sqlite3'
import {Kysely, Migrator, SqliteDialect} from 'kysely'
import {migrate, openStore} from '../../src/store/db.js'
import {migrations} from '../../src/store/migrations/index.js'
import {tempDir} from '../helpers.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

describe('migrations', () => {
  it('build every table on an empty database, in WAL mode', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const store = await openStore(dir)
    const tables = store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely%' AND name NOT LIKE 'sqlite%' ORDER BY name").pluck().all()
    expect(tables).toEqual(['api_keys', 'beacons', 'changes', 'events', 'geofence_metadata', 'geofence_presence', 'geofences', 'settings', 'sync_runs', 'sync_sources', 'trip_locations', 'trips', 'usage', 'users', 'webhook_outbox', 'webhooks'])
    for (const table of ['users', 'geofences', 'beacons', 'trips', 'events', 'settings', 'api_keys']) {
      const columns = store.sqlite.prepare(`SELECT name FROM pragma_table_info('${table}')`).pluck().all()
      expect(columns, table).toContain('live')
    }
    expect(store.sqlite.pragma('journal_mode', {simple: true})).toBe('wal')
    await store.close()
  })

  it('leave an existing database and its data as they are', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const first = await openStore(dir)
    await createKey(first, 'secret', 'live')
    await first.close()
    const again = await openStore(dir)
    const {results, error} = await migrate(again.sqlite)
    expect(error).toBeUndefined()
    expect(results).toEqual([])
    expect(await listKeys(again)).toHaveLength(1)
    await again.close()
  })

  it('bring a database of an older version up to date, keeping its data', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const old = new Database(path.join(dir, 'loc.db'))
    const db = new Kysely<unknown>({dialect: new SqliteDialect({database: old})})
    const first = {'001_initial': migrations['001_initial']}
    expect((await new Migrator({db, provider: {getMigrations: async () => first}}).migrateToLatest()).error).toBeUndefined()
    old.prepare("INSERT INTO api_keys (id, prefix, hash, type, live, created_at) VALUES ('k1', 'prj_test_sk_0000', 'h', 'secret', 0, '2026-01-01T00:00:00.000Z')").run()
    await db.destroy()
    const store = await openStore(dir)
    const tables = store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()
    expect(tables).toContain('usage')
    expect(await listKeys(store)).toHaveLength(1)
    expect((await migrate(store.sqlite)).results).toEqual([])
    await store.close()
  })
})
