import {execFile} from 'node:child_process'
import path from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {createGeofence, deleteGeofence, insertGeofence, upsertGeofenceByKey} from '../../src/geofences/store.js'
import {setSetting} from '../../src/project/settings.js'
import {type Change, type Follower, pruneChanges} from '../../src/store/changes.js'
import {writeGrouped} from '../../src/store/write.js'
import {startTestServer, type TestServer} from '../helpers.js'

const run = promisify(execFile)
/** Another process's commits show within a millisecond (changes.ts POLL_MS). */
const pastPollWindow = () => new Promise((resolve) => setTimeout(resolve, 2))
let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  await s.stop()
})

const circle = (description = 'Store') => geofenceInputSchema.parse({description, type: 'circle', coordinates: [7.42, 43.73], radius: 100})

/** A stand-in for the tracking engine's geofence index: descriptions by id, and how it was kept in step. */
function geofenceIndex(threshold?: number) {
  const read = s.store.sqlite.prepare('SELECT id, description FROM geofences WHERE live = 0')
  const readOne = s.store.sqlite.prepare('SELECT description FROM geofences WHERE id = ? AND live = 0').pluck()
  const index = {
    byId: new Map<string, string>(),
    rebuilds: 0,
    applied: [] as Change[],
    kinds: ['geofences'] as const,
    threshold,
    rebuild() {
      index.rebuilds++
      index.byId = new Map((read.all() as Array<{id: string; description: string}>).map((r) => [r.id, r.description]))
    },
    apply(changes: readonly Change[]) {
      for (const change of changes) {
        index.applied.push(change)
        const description = change.deleted ? undefined : (readOne.get(change.ref) as string | undefined)
        if (description === undefined) index.byId.delete(change.ref)
        else index.byId.set(change.ref, description)
      }
    },
  } satisfies Follower & Record<string, unknown>
  s.store.feed.follow(index)
  return index
}

describe('the change feed', () => {
  it('hands each committed change to followers in order, incrementally', async () => {
    const index = geofenceIndex()
    expect(index.rebuilds).toBe(1)
    const a = await createGeofence(s.store, false, circle('A'))
    await upsertGeofenceByKey(s.store, false, 'shops', 'b', circle('B'))
    await upsertGeofenceByKey(s.store, false, 'shops', 'b', circle('B2'))
    await deleteGeofence(s.store, false, {id: a.id})
    s.store.feed.catchUp()
    expect(index.rebuilds).toBe(1)
    expect(index.applied.map((c) => [c.kind, c.deleted])).toEqual([['geofences', false], ['geofences', false], ['geofences', false], ['geofences', true]])
    expect(index.applied.map((c) => c.seq)).toEqual([...index.applied.map((c) => c.seq)].sort((x, y) => x - y))
    expect([...index.byId.values()]).toEqual(['B2'])
  })

  it('rebuilds instead past the threshold', async () => {
    const index = geofenceIndex(3)
    for (let i = 0; i < 5; i++) await upsertGeofenceByKey(s.store, false, 'bulk', String(i), circle(`bulk ${i}`))
    s.store.feed.catchUp()
    expect(index.applied).toEqual([])
    expect(index.rebuilds).toBe(2)
    expect([...index.byId.values()].filter((d) => d.startsWith('bulk'))).toHaveLength(5)
  })

  it('past a batch of changes (an import): a follower past its threshold rebuilds unread, one under it gets exactly its changes', async () => {
    const index = geofenceIndex()
    const settings = {kinds: ['settings'] as const, rebuilds: 0, applied: [] as Change[], rebuild: () => settings.rebuilds++, apply: (c: readonly Change[]) => settings.applied.push(...c)}
    s.store.feed.follow(settings)
    // more geofence changes than the feed reads in a batch (5,000), with settings changes among
    // them, in one group commit so that nothing (the running server's timers) reads in between
    await Promise.all([
      setSetting(s.store, false, 'geofences.operatingHoursOnly', true),
      writeGrouped(s.store, (tx) => {
        for (let i = 0; i < 6000; i++) insertGeofence(tx, false, circle(`import ${i}`))
      }),
      setSetting(s.store, true, 'geofences.operatingHoursOnly', true),
    ])
    s.store.feed.catchUp()
    expect(index.rebuilds).toBe(2)
    expect(index.applied).toEqual([])
    expect([...index.byId.values()].filter((d) => d.startsWith('import '))).toHaveLength(6000)
    expect(settings.rebuilds).toBe(1)
    expect(settings.applied.map((c) => [c.kind, c.ref, c.live])).toEqual([['settings', 'geofences.operatingHoursOnly', false], ['settings', 'geofences.operatingHoursOnly', true]])
    // and from there on, incrementally again
    await setSetting(s.store, false, 'geofences.operatingHoursOnly', false)
    s.store.feed.catchUp()
    expect(settings.applied).toHaveLength(3)
    expect(settings.rebuilds).toBe(1)
  })

  it('rebuilds a follower that fell behind pruned changes', async () => {
    const index = geofenceIndex()
    const write = s.store.sqlite.prepare("UPDATE geofences SET description = 'pruned past' WHERE tag = 'bulk' AND external_id = '0'")
    // commits not read yet, then pruned down to the newest change, all in one group commit so that
    // nothing (the running server's timers) reads in between
    await Promise.all([writeGrouped(s.store, () => {
      write.run()
      write.run()
    }), pruneChanges(s.store, 1)])
    await pastPollWindow()
    s.store.feed.catchUp()
    expect(index.rebuilds).toBe(2)
    expect([...index.byId.values()]).toContain('pruned past')
  })

  it('carries a write from another process (a CLI command while the server runs) to the next request', async () => {
    const index = geofenceIndex()
    const script = `
      const {openStore} = await import(${JSON.stringify(path.resolve('dist/store/db.js'))})
      const {geofenceInputSchema} = await import(${JSON.stringify(path.resolve('dist/geofences/input.js'))})
      const {upsertGeofenceByKey} = await import(${JSON.stringify(path.resolve('dist/geofences/store.js'))})
      const store = await openStore(${JSON.stringify(s.dataDir)})
      await upsertGeofenceByKey(store, false, 'cli', 'x', geofenceInputSchema.parse({description: 'from another process', type: 'circle', coordinates: [7.4, 43.7], radius: 50}))
      await store.close()`
    await run('node', ['--input-type=module', '-e', script])
    await pastPollWindow()
    s.store.feed.catchUp()
    expect([...index.byId.values()]).toContain('from another process')
    expect(index.applied.at(-1)).toMatchObject({kind: 'geofences', live: false, deleted: false})

    // the same path through a real CLI command: the very next request sees the setting
    expect((await s.call('GET', '/v1/config', {key: s.keys.testPk})).status).toBe(200)
    const cli = await run('node', [path.resolve('bin/run.js'), 'settings', 'set', 'project.disabled', 'true', '--env', 'test'], {
      env: {...process.env, LOC_DATA_DIR: s.dataDir, LOC_LOG_LEVEL: 'silent'},
    })
    expect(cli.stdout).toContain('project.disabled = true')
    expect((await s.call('GET', '/v1/config', {key: s.keys.testPk})).status).toBe(402)
    expect((await s.call('GET', '/v1/config', {key: s.keys.livePk})).status).toBe(200)
  })
})
