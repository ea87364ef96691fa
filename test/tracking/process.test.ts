import {rmSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/config/index.js'
import {createLogger} from '../../src/log.js'
import {createKey} from '../../src/project/keys.js'
import {STORE_FILE} from '../../src/store/db.js'
import {openSystem, type System} from '../../src/system.js'
import {addSyncSource} from '../../src/sync/sources.js'
import {addWebhook} from '../../src/webhooks/registry.js'
import {connect} from 'node:net'
import {childrenOf, holderOf, launchServe, running, type ServeProcess, spawnServe, tempDir} from '../helpers.js'

const dirs: string[] = []
afterAll(() => dirs.forEach((d) => rmSync(d, {recursive: true, force: true})))

/** Serves the CSV a sync downloads. */
const csvServer = await (async () => {
  const csv = 'description,type,tag,externalId,coordinates,radius\r\nA,circle,synced,a,"[7.42,43.735]",100\r\nB,circle,synced,b,"[7.43,43.74]",100\r\n'
  // /slow.csv answers after 8 s: a sync still downloading when the server is asked to stop
  const server = createServer((req, res) => {
    const send = () => res.writeHead(200, {'content-type': 'text/csv'}).end(csv)
    if (req.url === '/slow.csv') setTimeout(send, 8000)
    else send()
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return {url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`}
})()

const INSIDE = {latitude: 43.735, longitude: 7.42, accuracy: 10}
const OUTSIDE = {latitude: 43.745, longitude: 7.42, accuracy: 10}

/** A data dir with keys and one geofence, written before any server runs. */
async function prepared(more?: (system: System) => void): Promise<{dir: string; pk: string; sk: string}> {
  const dir = tempDir()
  dirs.push(dir)
  const system = await openSystem(loadConfig({env: {}, overrides: {dataDir: dir}}), {log: createLogger('silent')})
  const pk = createKey(system.store, 'publishable', 'test').key
  const sk = createKey(system.store, 'secret', 'test').key
  more?.(system)
  await system.close()
  return {dir, pk, sk}
}

const env = (dir: string, track = '1000000') => ({LOC_DATA_DIR: dir, LOC_RATE_LIMITS__TRACK: track})

async function post(url: string, key: string, body: unknown, close = false) {
  const res = await fetch(`${url}/v1/track`, {method: 'POST', headers: {authorization: key, 'content-type': 'application/json', ...(close ? {connection: 'close'} : {})}, body: JSON.stringify(body)})
  return {status: res.status, body: await res.json() as any}
}

/** A served store whose write lock another connection holds while `fn` runs (as a CLI import does); released after. */
async function withLockHeld(fn: (served: ServeProcess, pk: string, other: Database.Database, sk: string) => Promise<void>,
  setup: {more?: (system: System) => void; env?: Record<string, string>} = {}): Promise<void> {
  const {dir, pk, sk} = await prepared(setup.more)
  const served = await spawnServe([], {...env(dir), ...setup.env})
  const other = new Database(path.join(dir, STORE_FILE))
  other.exec('BEGIN IMMEDIATE')
  try {
    await fn(served, pk, other, sk)
  } finally {
    if (other.inTransaction) other.exec('ROLLBACK')
    other.close()
    expect(await served.stop()).toBe(0)
  }
}

describe('loc serve as a process', () => {
  it('kill -9 during a track load: every acknowledged event is stored once, presence matches, a restart continues exactly', async () => {
    const {dir, pk, sk} = await prepared()
    const first = await spawnServe([], env(dir))
    await fetch(`${first.url}/v1/geofences/store/1`, {method: 'PUT', headers: {authorization: sk, 'content-type': 'application/json'},
      body: JSON.stringify({description: 'Store', type: 'circle', coordinates: [7.42, 43.735], radius: 100})})
    const acknowledged: string[] = []
    let crashed = false
    const device = async (d: number) => {
      for (let i = 0; !crashed; i++) {
        try {
          const res = await post(first.url, pk, {deviceId: `d${d}`, ...(i % 2 ? OUTSIDE : INSIDE)})
          if (res.status === 200) for (const e of res.body.events) acknowledged.push(e._id)
        } catch {
          return // the connection died with the server
        }
      }
    }
    const load = Promise.all(Array.from({length: 16}, (_, d) => device(d)))
    // crash mid-load: once enough has been acknowledged, with 16 devices' requests in flight
    while (acknowledged.length < 40) await new Promise((r) => setTimeout(r, 10))
    crashed = true
    expect(await first.kill('SIGKILL')).toBe('SIGKILL')
    await load

    const system = await openSystem(loadConfig({env: {}, overrides: {dataDir: dir}}), {log: createLogger('silent')})
    const rows = system.store.sqlite.prepare('SELECT id, type, user_ref FROM events ORDER BY rowid').all() as Array<{id: string; type: string; user_ref: string}>
    const stored = new Set(rows.map((r) => r.id))
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([])
    // per user the events alternate entry, exit, entry...: none lost, none duplicated
    const byUser = new Map<string, string[]>()
    for (const r of rows) byUser.set(r.user_ref, [...(byUser.get(r.user_ref) ?? []), r.type])
    const inside = new Set((system.store.sqlite.prepare('SELECT id FROM users WHERE presence IS NOT NULL').pluck().all() as string[]))
    for (const [user, types] of byUser) {
      types.forEach((t, i) => expect(t).toBe(i % 2 ? 'user.exited_geofence' : 'user.entered_geofence'))
      expect(inside.has(user)).toBe(types.length % 2 === 1)
    }
    const devices = new Map((system.store.sqlite.prepare('SELECT id, device_id FROM users').all() as Array<{id: string; device_id: string}>).map((u) => [u.device_id, u.id]))
    await system.close()

    const second = await spawnServe([], env(dir))
    try {
      for (const [deviceId, id] of devices) {
        const res = await post(second.url, pk, {deviceId, ...INSIDE})
        expect(res.body.events.map((e: any) => e.type)).toEqual(inside.has(id) ? [] : ['user.entered_geofence'])
      }
    } finally {
      await second.stop()
    }
  }, 120_000)

  it('--workers 2: tracks of one device spread over both workers give the same events; the rate limit counts per worker', async () => {
    const {dir, pk, sk} = await prepared()
    const served = await spawnServe(['--workers', '2'], env(dir, '1'))
    try {
      expect(served.output()).toMatch(/2 workers/)
      await fetch(`${served.url}/v1/geofences/store/1`, {method: 'PUT', headers: {authorization: sk, 'content-type': 'application/json'},
        body: JSON.stringify({description: 'Store', type: 'circle', coordinates: [7.42, 43.735], radius: 100})})
      const types: string[] = []
      for (let i = 0; i < 6; i++) {
        await new Promise((r) => setTimeout(r, 1010 - (Date.now() % 1000))) // a fresh rate-limit second
        const res = await post(served.url, pk, {deviceId: 'one', ...(i % 2 ? OUTSIDE : INSIDE)}, true)
        expect(res.status).toBe(200)
        types.push(...res.body.events.map((e: any) => e.type))
      }
      expect(types).toEqual(['user.entered_geofence', 'user.exited_geofence', 'user.entered_geofence', 'user.exited_geofence', 'user.entered_geofence', 'user.exited_geofence'])
      // a burst of one device inside one second: each worker admits its own 1 per second
      while (Date.now() % 1000 > 500) await new Promise((r) => setTimeout(r, 20))
      const burst = await Promise.all(Array.from({length: 8}, () => post(served.url, pk, {deviceId: 'burst', ...INSIDE}, true)))
      const ok = burst.filter((r) => r.status === 200).length
      expect(ok).toBeGreaterThanOrEqual(1)
      expect(ok).toBeLessThanOrEqual(2)
    } finally {
      expect(await served.stop()).toBe(0)
    }
  }, 120_000)

  it('another connection holding the write lock (a CLI import): tracks wait for it, while the server goes on answering', () => withLockHeld(async (served, pk, other) => {
    const tracked = post(served.url, pk, {deviceId: 'waiting', ...INSIDE})
    await new Promise((r) => setTimeout(r, 200))
    // a read meanwhile is answered while the lock is still held; a server asleep in SQLite's busy
    // handler would answer it only when the track failed, after the 5 s busy timeout
    const asked = Date.now()
    const config = await fetch(`${served.url}/v1/config`, {headers: {authorization: pk}})
    expect(config.status).toBe(200)
    expect(Date.now() - asked).toBeLessThan(2000)
    expect(other.inTransaction).toBe(true)
    other.exec('COMMIT')
    const res = await tracked
    expect(res.status).toBe(200)
    expect(res.body.user.deviceId).toBe('waiting')
    expect(other.prepare("SELECT count(*) FROM users WHERE device_id = 'waiting'").pluck().get()).toBe(1)
  }), 60_000)

  it('another connection holding the write lock: the other writes of the API and a sync wait for it too, while the server goes on answering', () => withLockHeld(async (served, pk, other, sk) => {
    const call = async (method: string, route: string, key: string, body: unknown) => {
      const res = await fetch(`${served.url}/v1${route}`, {method, headers: {authorization: key, 'content-type': 'application/json'}, body: JSON.stringify(body)})
      return {route, status: res.status}
    }
    const writes = Promise.all([
      call('PUT', '/geofences/store/2', sk, {description: 'Store 2', type: 'circle', coordinates: [7.43, 43.74], radius: 100}),
      call('PUT', '/beacons/till/1', sk, {description: 'Till', type: 'ibeacon', uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: 7, minor: 8, coordinates: [7.44, 43.75]}),
      call('POST', '/trips', pk, {externalId: 'order-1'}),
      call('PATCH', '/settings', sk, {chainMappings: {cafe: 'c-1'}}),
      call('POST', '/events', pk, {name: 'purchase', deviceId: 'buyer'}),
      // the sync is recorded, downloads, then stages and merges its rows: each a write
      call('POST', '/geofences/sync', sk, {}),
    ])
    await new Promise((r) => setTimeout(r, 200))
    const asked = Date.now()
    expect((await fetch(`${served.url}/v1/config`, {headers: {authorization: pk}})).status).toBe(200)
    expect(Date.now() - asked).toBeLessThan(2000)
    expect(other.inTransaction).toBe(true)
    other.exec('COMMIT')
    expect(await writes).toEqual([...['/geofences/store/2', '/beacons/till/1', '/trips', '/settings', '/events'].map((route) => ({route, status: 200})),
      {route: '/geofences/sync', status: 202}])
    const count = (sql: string) => other.prepare(sql).pluck().get()
    expect(count("SELECT count(*) FROM geofences WHERE external_id = '2'")).toBe(1)
    expect(count("SELECT count(*) FROM beacons WHERE external_id = '1'")).toBe(1)
    expect(count("SELECT count(*) FROM trips WHERE external_id = 'order-1'")).toBe(1)
    expect(count("SELECT count(*) FROM settings WHERE key = 'places.chainMappings'")).toBe(1)
    expect(count("SELECT count(*) FROM events WHERE type = 'conversion'")).toBe(1)
    await expect.poll(() => other.prepare('SELECT status, created FROM sync_runs').get(), {timeout: 10_000}).toEqual({status: 'succeeded', created: 2})
    expect(count("SELECT count(*) FROM geofences WHERE tag = 'synced'")).toBe(2)
  }, {
    more: (system) => addSyncSource(system.store, system.config, false, {url: `${csvServer.url}/stores.csv`, prune: false}),
    env: {LOC_SYNC__ALLOW_PRIVATE_URLS: 'true'},
  }), 60_000)

  it('another connection holding the write lock: the webhook worker\'s passes wait for it without stalling the server', () => withLockHeld(async (served, pk, other) => {
    // the worker looks for owed deliveries every 100 ms: each look is a write that meets the lock
    const slowest = {ms: 0}
    for (let i = 0; i < 15; i++) {
      const asked = Date.now()
      expect((await fetch(`${served.url}/v1/config`, {headers: {authorization: pk}})).status).toBe(200)
      slowest.ms = Math.max(slowest.ms, Date.now() - asked)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(slowest.ms).toBeLessThan(500)
    other.exec('ROLLBACK')
    expect((await post(served.url, pk, {deviceId: 'after', ...INSIDE})).status).toBe(200)
  }, {more: (system) => addWebhook(system.store, false, {url: 'http://127.0.0.1:9/hook'}), env: {LOC_WEBHOOKS__POLL_MS: '100'}}), 60_000)

  it('a lock held past the busy timeout: the track is answered 503 with Retry-After, nothing stored, and the server runs on', () => withLockHeld(async (served, pk, other) => {
    const res = await fetch(`${served.url}/v1/track`, {method: 'POST', headers: {authorization: pk, 'content-type': 'application/json'}, body: JSON.stringify({deviceId: 'refused', ...INSIDE})})
    expect(res.status).toBe(503)
    expect(res.headers.get('retry-after')).toBe('1')
    expect(((await res.json()) as any).meta).toMatchObject({code: 503, error: 'unavailable'})
    other.exec('ROLLBACK')
    expect(other.prepare("SELECT count(*) FROM users WHERE device_id = 'refused'").pluck().get()).toBe(0)
    expect((await post(served.url, pk, {deviceId: 'after', ...INSIDE})).status).toBe(200)
  }), 60_000)
})

/** The `count` processes `pid` starts next that are not among `known` (a primary's new workers), as soon as they run. */
async function forked(pid: number, count: number, known: number[] = []): Promise<number[]> {
  for (const deadline = Date.now() + 30_000; Date.now() < deadline; await new Promise((r) => setTimeout(r, 5))) {
    const found = childrenOf(pid).filter((child) => !known.includes(child))
    if (found.length >= count) return found
  }
  throw new Error(`${pid} forked no ${count} processes in 30 s`)
}

/** What `promise` gives within `ms`, else a word that fails the expectation and says why. */
const within = <T>(promise: Promise<T>, ms: number) =>
  Promise.race([promise, new Promise<string>((resolve) => setTimeout(() => resolve(`still running after ${ms} ms`), ms))])

/** Ends what a failed test left running, so no worker outlives it. */
const killAll = (pids: number[]) => pids.filter(running).forEach((pid) => process.kill(pid, 'SIGKILL'))

describe('stopping loc serve --workers', () => {
  it('SIGTERM as the workers start, before they listen for a stop message: every process ends, exit 0, nothing served or forked again', async () => {
    const {dir} = await prepared()
    const served = launchServe(['--workers', '2'], env(dir))
    const workers = await forked(served.pid, 2)
    try {
      expect(await within(served.stop(), 15_000)).toBe(0)
      expect(workers.filter(running)).toEqual([])
      expect(served.output()).toContain('loc stopped')
      expect(served.output()).not.toMatch(/listening|exited|starting another/)
    } finally {
      killAll([served.pid, ...workers])
    }
  }, 30_000)

  it('SIGTERM while a worker answers a track and another is replaced: the track is answered and stored, the replacement stops as it starts, every process ends, exit 0', async () => {
    const {dir, pk} = await prepared()
    const served = await spawnServe(['--workers', '2'], env(dir))
    const workers = await forked(served.pid, 2)
    const other = new Database(path.join(dir, STORE_FILE))
    const pids = [served.pid, ...workers]
    try {
      // the track waits for the write lock: in flight until the lock is let go, after the stop
      other.exec('BEGIN IMMEDIATE')
      const socket = connect(Number(new URL(served.url).port), '127.0.0.1')
      await new Promise((resolve) => socket.once('connect', resolve))
      let response = ''
      socket.on('data', (chunk) => (response += chunk))
      const ended = new Promise((resolve) => socket.once('close', resolve))
      const body = JSON.stringify({deviceId: 'in-flight', ...INSIDE})
      socket.write(`POST /v1/track HTTP/1.1\r\nHost: x\r\nAuthorization: ${pk}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`)
      let answering: number | undefined
      while (!(answering = holderOf(socket, workers))) await new Promise((r) => setTimeout(r, 5))
      const crashed = workers.find((pid) => pid !== answering)!
      process.kill(crashed, 'SIGKILL')
      const [replacement] = await forked(served.pid, 1, workers)
      pids.push(replacement)
      // at once: the replacement is still loading (node and the CLI take most of a second)
      const stopped = served.stop()
      await new Promise((r) => setTimeout(r, 300))
      other.exec('COMMIT')
      await ended
      expect(response).toMatch(/^HTTP\/1\.1 200/)
      expect(response).toContain('"deviceId":"in-flight"')
      expect(await within(stopped, 15_000)).toBe(0)
      expect(pids.filter(running)).toEqual([])
      expect(other.prepare("SELECT count(*) FROM users WHERE device_id = 'in-flight'").pluck().get()).toBe(1)
      // the crashed worker was replaced; nothing was forked during the stop
      expect(served.output().match(/starting another/g)).toHaveLength(1)
      expect(served.output()).toContain('loc stopped')
    } finally {
      if (other.inTransaction) other.exec('ROLLBACK')
      other.close()
      killAll(pids)
    }
  }, 30_000)

  it('a worker that hangs while stopping is killed at the deadline (the longest of its own stop, plus 5 s), said on stderr; the primary exits 1', async () => {
    const {dir} = await prepared()
    // the deadline: max(shutdownTimeoutMs, webhooks.timeoutMs) + 5 s = 5.3 s
    const served = await spawnServe(['--workers', '2'], {...env(dir), LOC_SERVER__SHUTDOWN_TIMEOUT_MS: '300', LOC_WEBHOOKS__TIMEOUT_MS: '200'})
    const workers = await forked(served.pid, 2)
    const [hung, healthy] = workers
    try {
      // stopped by the kernel: it hears neither the stop message nor SIGTERM
      process.kill(hung, 'SIGSTOP')
      const asked = Date.now()
      const stopped = served.stop()
      while (running(healthy)) await new Promise((r) => setTimeout(r, 20))
      expect(running(hung)).toBe(true)
      expect(await within(stopped, 15_000)).toBe(1)
      expect(Date.now() - asked).toBeGreaterThanOrEqual(5300)
      expect(workers.filter(running)).toEqual([])
      expect(served.output()).toContain(`worker ${hung} hung while stopping (silent for 5.3 s); killed it (SIGKILL)\n`)
      expect(served.output()).not.toContain(`worker ${healthy} hung`)
      expect(served.output()).not.toMatch(/loc stopped|starting another/)
    } finally {
      killAll([served.pid, ...workers])
    }
  }, 30_000)

  it('a worker whose stop waits longer than that for a sync run still at work is not killed: the run finishes, exit 0', async () => {
    const {dir, sk} = await prepared((system) => addSyncSource(system.store, system.config, false, {url: `${csvServer.url}/slow.csv`, prune: false}))
    const served = await spawnServe(['--workers', '2'], {...env(dir), LOC_SERVER__SHUTDOWN_TIMEOUT_MS: '300', LOC_WEBHOOKS__TIMEOUT_MS: '200', LOC_SYNC__ALLOW_PRIVATE_URLS: 'true'})
    const workers = await forked(served.pid, 2)
    try {
      const started = await fetch(`${served.url}/v1/geofences/sync`, {method: 'POST', headers: {authorization: sk, 'content-type': 'application/json'}, body: '{}'})
      expect(started.status).toBe(202)
      const asked = Date.now()
      // the run downloads for 8 s, past the 5.3 s a silent worker is given
      expect(await within(served.stop(), 20_000)).toBe(0)
      expect(Date.now() - asked).toBeGreaterThan(5300)
      expect(workers.filter(running)).toEqual([])
      expect(served.output()).not.toMatch(/hung while stopping|killed/)
      const store = new Database(path.join(dir, STORE_FILE), {readonly: true})
      expect(store.prepare('SELECT status, created FROM sync_runs').get()).toEqual({status: 'succeeded', created: 2})
      store.close()
    } finally {
      killAll([served.pid, ...workers])
    }
  }, 40_000)
})
