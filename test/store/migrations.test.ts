import {rmSync} from 'node:fs'
import {afterEach, describe, expect, it} from 'vitest'
import {createKey, listKeys} from '../../src/project/keys.js'
import {Migrator} from 'kysely'
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
    expect(tables).toEqual(['api_keys', 'beacons', 'events', 'geofence_presence', 'geofences', 'settings', 'trip_locations', 'trips', 'usage', 'users'])
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
    const {results, error} = await migrate(again)
    expect(error).toBeUndefined()
    expect(results).toEqual([])
    expect(await listKeys(again)).toHaveLength(1)
    await again.close()
  })

  it('bring a database of an older version up to date, keeping its data', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const old = await openStore(dir, {migrate: false})
    const first = {'001_initial': migrations['001_initial']}
    expect((await new Migrator({db: old.db, provider: {getMigrations: async () => first}}).migrateToLatest()).error).toBeUndefined()
    await createKey(old, 'secret', 'test')
    await old.close()
    const store = await openStore(dir)
    const tables = store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table'").pluck().all()
    expect(tables).toContain('usage')
    expect(await listKeys(store)).toHaveLength(1)
    expect((await migrate(store)).results).toEqual([])
    await store.close()
  })
})
