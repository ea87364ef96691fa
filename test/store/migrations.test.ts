import {execFile} from 'node:child_process'
import {rmSync} from 'node:fs'
import {promisify} from 'node:util'
import {afterEach, describe, expect, it} from 'vitest'
import {createKey, listKeys} from '../../src/project/keys.js'
import path from 'node:path'
import Database from 'better-sqlite3'
import {Kysely, Migrator, SqliteDialect, sql} from 'kysely'
import {migrate, openStore} from '../../src/store/db.js'
import {migrations} from '../../src/store/migrations/index.js'
import {setSettings} from '../../src/project/settings.js'
import {startTestServer, tempDir} from '../helpers.js'

const dirs: string[] = []
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, {recursive: true, force: true})
})

/** The store file of `dir` opened raw, to migrate it down to a named migration and read what is left. */
function opened(dir: string) {
  const raw = new Database(path.join(dir, 'loc.db'))
  const db = new Kysely<unknown>({dialect: new SqliteDialect({database: raw})})
  return {
    raw,
    migrateTo: (name: string) => new Migrator({db, provider: {getMigrations: async () => migrations}}).migrateTo(name),
    close: () => db.destroy(),
  }
}

describe('migrations', () => {
  it('build every table on an empty database, in WAL mode', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const store = await openStore(dir)
    const tables = store.sqlite.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'kysely%' AND name NOT LIKE 'sqlite%' ORDER BY name").pluck().all()
    expect(tables).toEqual(['api_keys', 'beacons', 'changes', 'event_parts', 'events', 'geofence_metadata', 'geofences', 'settings', 'sync_runs', 'sync_sources', 'trip_locations', 'trips', 'usage', 'users', 'webhook_outbox', 'webhooks'])
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

  it('move presence rows of 011 into the user row and the geofence-to-user table (012), drop that table (013), and back down', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const old = new Database(path.join(dir, 'loc.db'))
    const db = new Kysely<unknown>({dialect: new SqliteDialect({database: old})})
    const upTo011 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= '011'))
    expect((await new Migrator({db, provider: {getMigrations: async () => upTo011}}).migrateToLatest()).error).toBeUndefined()
    const geofence = (id: string) => old.prepare(`INSERT INTO geofences (id, live, description, type, geometry, center_lng, center_lat, radius, enabled, min_lng, min_lat, max_lng, max_lat, created_at, updated_at)
      VALUES (?, 0, 'g', 'circle', '{}', 7.42, 43.73, 100, 1, 7.41, 43.72, 7.43, 43.74, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`).run(id)
    const user = (id: string) => old.prepare(`INSERT INTO users (id, live, device_id, created_at, updated_at) VALUES (?, 0, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`).run(id, `d-${id}`)
    for (const id of ['g1', 'g2']) geofence(id)
    for (const id of ['u1', 'u2', 'u3']) user(id)
    const presence = old.prepare('INSERT INTO geofence_presence (user_ref, geofence_id, live, entered_at, dwelled, confidence) VALUES (?, ?, 0, ?, ?, ?)')
    presence.run('u1', 'g1', '2026-01-01T00:00:01.000Z', 1, 3)
    presence.run('u1', 'g2', '2026-01-01T00:00:02.000Z', 0, 2)
    presence.run('u2', 'g2', '2026-01-01T00:00:03.000Z', 0, 1)
    await db.destroy()

    const upTo012 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= '012'))
    const at012 = new Kysely<unknown>({dialect: new SqliteDialect({database: new Database(path.join(dir, 'loc.db'))})})
    expect((await new Migrator({db: at012, provider: {getMigrations: async () => upTo012}}).migrateToLatest()).error).toBeUndefined()
    const [table012] = await sql<{n: number}>`SELECT count(*) AS n FROM sqlite_master WHERE name = 'geofence_presence'`.execute(at012).then((r) => r.rows)
    expect(table012.n).toBe(1)
    expect((await sql`SELECT geofence_id, user_ref FROM geofence_presence ORDER BY 1, 2`.execute(at012)).rows)
      .toEqual([{geofence_id: 'g1', user_ref: 'u1'}, {geofence_id: 'g2', user_ref: 'u1'}, {geofence_id: 'g2', user_ref: 'u2'}])
    await at012.destroy()

    // 013: presence lives only in the user row
    const store = await openStore(dir)
    const presenceOf = (id: string) => JSON.parse(store.sqlite.prepare('SELECT presence FROM users WHERE id = ?').pluck().get(id) as string ?? 'null')
    expect(presenceOf('u1').sort()).toEqual([['g1', '2026-01-01T00:00:01.000Z', 1, 3], ['g2', '2026-01-01T00:00:02.000Z', 0, 2]])
    expect(presenceOf('u2')).toEqual([['g2', '2026-01-01T00:00:03.000Z', 0, 1]])
    expect(presenceOf('u3')).toBeNull()
    expect(store.sqlite.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'geofence_presence'").pluck().get()).toBe(0)
    const columns = store.sqlite.prepare(`SELECT name FROM pragma_table_info('users')`).pluck().all()
    expect(columns).toContain('presence')
    expect(columns).not.toContain('presence_stamp')

    await store.close()
    const {raw, migrateTo, close} = opened(dir)
    expect((await migrateTo('012_presence_in_user')).error).toBeUndefined()
    expect(raw.prepare('SELECT geofence_id, user_ref FROM geofence_presence ORDER BY 1, 2').all())
      .toEqual([{geofence_id: 'g1', user_ref: 'u1'}, {geofence_id: 'g2', user_ref: 'u1'}, {geofence_id: 'g2', user_ref: 'u2'}])
    expect((await migrateTo('011_presence_stamp')).error).toBeUndefined()
    expect(raw.prepare('SELECT user_ref, geofence_id, entered_at, dwelled, confidence FROM geofence_presence ORDER BY 1, 2').all()).toEqual([
      {user_ref: 'u1', geofence_id: 'g1', entered_at: '2026-01-01T00:00:01.000Z', dwelled: 1, confidence: 3},
      {user_ref: 'u1', geofence_id: 'g2', entered_at: '2026-01-01T00:00:02.000Z', dwelled: 0, confidence: 2},
      {user_ref: 'u2', geofence_id: 'g2', entered_at: '2026-01-01T00:00:03.000Z', dwelled: 0, confidence: 1},
    ])
    await close()
  })

  it("index each event's user once, for the userId filter's newest-first reads (014), and back down", async () => {
    const dir = tempDir()
    dirs.push(dir)
    const store = await openStore(dir)
    const indexSql = (name: string) => store.sqlite.prepare('SELECT sql FROM sqlite_master WHERE name = ?').pluck().get(name)
    expect(indexSql('events_live_user_id')).toBe('CREATE INDEX events_live_user_id ON events (live, user_id, created_at, id) WHERE user_id IS NOT NULL')
    expect(indexSql('events_user_ref')).toBe('CREATE INDEX events_user_ref ON events (live, user_ref, created_at, id) WHERE user_id IS NULL')
    // the shapes of events/store.ts's reads: each walks its index in order, never the whole table
    const plan = (where: string) => store.sqlite.prepare(`EXPLAIN QUERY PLAN SELECT * FROM events WHERE live = 0 AND ${where}
      AND created_at < '9' ORDER BY created_at DESC, id DESC LIMIT 51`).all().map((r: any) => r.detail).join(' | ')
    expect(plan("user_id = 'u'")).toMatch(/^SEARCH events USING INDEX events_live_user_id \(live=\? AND user_id=\? AND created_at<\?\)$/)
    expect(plan("user_id IS NULL AND user_ref = 'r'")).toMatch(/^SEARCH events USING INDEX events_user_ref \(live=\? AND user_ref=\? AND created_at<\?\)$/)
    expect(plan("user_id = 'u' AND user_ref = 'r'")).toMatch(/^SEARCH events USING INDEX events_live_user_id /)
    await store.close()

    const {raw, migrateTo, close} = opened(dir)
    expect((await migrateTo('013_presence_only_in_user')).error).toBeUndefined()
    expect(raw.prepare("SELECT name, sql FROM sqlite_master WHERE name IN ('events_live_user_id', 'events_user_ref') ORDER BY name").all()).toEqual([
      {name: 'events_live_user_id', sql: 'CREATE INDEX events_live_user_id ON events (live, user_id)'},
      {name: 'events_user_ref', sql: 'CREATE INDEX events_user_ref ON events (user_ref)'},
    ])
    await close()
  })

  it('store the geofences embedded in event users once (015), and back down with every payload whole', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const store = await openStore(dir)
    const insert = store.sqlite.prepare(`INSERT INTO events (id, live, type, user_ref, user_id, payload, created_at, actual_created_at, parts, parts_at)
      VALUES (?, 0, 'user.entered_geofence', 'u1', NULL, ?, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z', ?, ?)`)
    const head = '{"user":{"_id":"u1","geofences":['
    insert.run('e1', `${head}]},"confidence":3}`, 'kb,ka', head.length)
    insert.run('e2', '{"name":"whole"}', null, null)
    store.sqlite.prepare("INSERT INTO event_parts (key, json) VALUES ('ka', '{\"_id\":\"a\"}'), ('kb', '{\"_id\":\"b\"}')").run()
    await store.close()

    const {raw, migrateTo, close} = opened(dir)
    expect((await migrateTo('014_events_user_ref_logged_out')).error).toBeUndefined()
    expect(raw.prepare('SELECT id, payload FROM events ORDER BY id').all()).toEqual([
      {id: 'e1', payload: '{"user":{"_id":"u1","geofences":[{"_id":"b"},{"_id":"a"}]},"confidence":3}'},
      {id: 'e2', payload: '{"name":"whole"}'},
    ])
    expect(raw.prepare("SELECT count(*) FROM sqlite_master WHERE name = 'event_parts'").pluck().get()).toBe(0)
    await close()
  })

  it('spell the beacon identifiers stored before they were checked in their one form (016), so tracks match them; others stay', async () => {
    const dir = tempDir()
    dirs.push(dir)
    const old = new Database(path.join(dir, 'loc.db'))
    const db = new Kysely<unknown>({dialect: new SqliteDialect({database: old})})
    const upTo015 = Object.fromEntries(Object.entries(migrations).filter(([name]) => name <= '015'))
    expect((await new Migrator({db, provider: {getMigrations: async () => upTo015}}).migrateToLatest()).error).toBeUndefined()
    const insert = old.prepare(`INSERT INTO beacons (id, live, tag, external_id, description, type, uuid, major, minor, uid, instance, lng, lat, enabled, created_at, updated_at)
      VALUES (?, 0, 'old', ?, ?, ?, ?, ?, ?, ?, ?, 7.42, 43.735, 1, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z')`)
    insert.run('b1', 'upper', 'upper', 'ibeacon', 'B9407F30F5F8466EAFF925556B57FE6D', '0100', '01', null, null)
    insert.run('b2', 'hex', 'hex', 'eddystone', null, null, null, '0xEDD1EBEAC04E5DEFA017', '0123456789AB')
    insert.run('b3', 'odd', 'odd', 'eddystone', null, null, null, 'Shop-Door', '1')
    await db.destroy()

    const server = await startTestServer({dataDir: dir})
    try {
      expect(server.store.sqlite.prepare('SELECT id, uuid, major, minor, uid, instance, updated_at FROM beacons ORDER BY id').all()).toEqual([
        {id: 'b1', uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '100', minor: '1', uid: null, instance: null, updated_at: '2026-01-01T00:00:00.000Z'},
        {id: 'b2', uuid: null, major: null, minor: null, uid: 'edd1ebeac04e5defa017', instance: '0123456789ab', updated_at: '2026-01-01T00:00:00.000Z'},
        {id: 'b3', uuid: null, major: null, minor: null, uid: 'Shop-Door', instance: '1', updated_at: '2026-01-01T00:00:00.000Z'},
      ])
      await setSettings(server.store, false, {'beacons.enabled': true})
      const res = await server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId: 'd', latitude: 43.735, longitude: 7.42, beacons: [
        {type: 'ibeacon', uuid: 'B9407F30-F5F8-466E-AFF9-25556B57FE6D', major: 100, minor: 1},
        {type: 'eddystone', uid: 'edd1ebeac04e5defa017', instance: '0123456789ab'},
        {type: 'eddystone', uid: 'Shop-Door', instance: '1'},
      ]}})
      expect(res.body.events.map((e: any) => e.beacon.externalId)).toEqual(['upper', 'hex', 'odd'])
    } finally {
      await server.stop()
    }
  })

  it('run once when two processes open a new store at the same moment', async () => {
    const run = promisify(execFile)
    for (let round = 0; round < 3; round++) {
      const dir = tempDir()
      dirs.push(dir)
      const both = await Promise.allSettled([0, 1].map(() => run('node', [path.resolve('bin/run.js'), 'migrate', '--data-dir', dir], {env: {...process.env, LOC_LOG_LEVEL: 'silent'}})))
      expect(both.map((r) => (r.status === 'rejected' ? String(r.reason) : 'ok')), `round ${round}`).toEqual(['ok', 'ok'])
      const db = new Database(path.join(dir, 'loc.db'), {readonly: true})
      try {
        expect(db.prepare('SELECT name FROM kysely_migration ORDER BY name').pluck().all()).toEqual(Object.keys(migrations).sort())
      } finally {
        db.close()
      }
    }
  }, 60_000)
})
