import {spawnSync} from 'node:child_process'
import {mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {hostname} from 'node:os'
import path from 'node:path'
import {CreateBucketCommand, PutObjectCommand, S3Client} from '@aws-sdk/client-s3'
import S3rver from 's3rver'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Change} from '../../src/store/changes.js'
import {createLogger} from '../../src/log.js'
import {importGeofences} from '../../src/sync/import.js'
import {runSync} from '../../src/sync/run.js'
import {startSyncScheduler} from '../../src/sync/scheduler.js'
import {addSyncSource, removeSyncSource, type SyncSource, syncSource} from '../../src/sync/sources.js'
import {isPrivateAddress} from '../../src/webhooks/target.js'
import {startTestServer, tempDir, type TestServer} from '../helpers.js'

const TOKEN = 'Bearer tok-4f9c1e7a-never-shown'
const S3_SECRET = 'S3RVER'
process.env.LOC_TEST_SYNC_TOKEN = TOKEN
process.env.LOC_TEST_S3_SECRET = S3_SECRET
process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = 'true'

const HEADER = 'description,type,tag,externalId,coordinates,radius\n'
const row = (id: number) => `Store ${id},circle,sync,${id},"[7.42,43.73]",100\n`
const FILE_3 = HEADER + row(1) + row(2) + row(3)

/** A real HTTP server whose paths misbehave on purpose. */
let files: Record<string, string> = {}
let authorizations: Array<string | undefined> = []
/** Every request the server got: the host asked for and the credentials sent. */
let requests: Array<{host: string | undefined; path: string; authorization: string | undefined}> = []
let userAgents: Array<string | undefined> = []
let http: Server
let base: string
let s3rver: S3rver
let s3: S3Client
let endpoint: string
let server: TestServer

beforeAll(async () => {
  http = createServer((req, res) => {
    authorizations.push(req.headers.authorization)
    requests.push({host: req.headers.host, path: req.url!, authorization: req.headers.authorization})
    userAgents.push(req.headers['user-agent'])
    const asked = new URL(req.url!, 'http://x')
    if (asked.pathname === '/redirect') return res.writeHead(302, {location: asked.searchParams.get('to')!}).end()
    const name = asked.pathname.slice(1)
    if (name === 'missing.csv') return res.writeHead(404).end('no')
    if (name === 'broken.csv') return res.writeHead(500).end('oops')
    if (name === 'slow.csv') return // never answers: the timeout
    if (name === 'truncated.csv') {
      res.writeHead(200, {'content-length': 10_000})
      res.write(FILE_3)
      setTimeout(() => res.destroy(), 20)
      return
    }
    if (name === 'dropped.csv') {
      // chunked, no Content-Length: the end of the body is the last chunk, which never comes
      res.writeHead(200, {'content-type': 'text/csv'})
      res.write(FILE_3)
      setTimeout(() => res.destroy(), 20)
      return
    }
    if (name === 'private.csv') {
      if (req.headers.authorization !== TOKEN) return res.writeHead(401).end()
    }
    const body = files[name]
    if (body === undefined) return res.writeHead(404).end()
    const etag = `"${Buffer.byteLength(body)}-${body.length}"`
    if (req.headers['if-none-match'] === etag) return res.writeHead(304).end()
    res.writeHead(200, {'content-type': 'text/csv', etag}).end(body)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`

  s3rver = new S3rver({port: 0, address: '127.0.0.1', silent: true, directory: tempDir('loc-s3rver-')})
  const {port} = await s3rver.run()
  endpoint = `http://127.0.0.1:${port}`
  s3 = new S3Client({region: 'us-east-1', endpoint, forcePathStyle: true, credentials: {accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER'}})
  await s3.send(new CreateBucketCommand({Bucket: 'geofence-files'}))

  server = await startTestServer({sync: {
    allowPrivateUrls: true,
    timeoutMs: 20_000,
    credentials: {
      web: {authorization: 'env:LOC_TEST_SYNC_TOKEN'},
      minio: {accessKeyId: 'S3RVER', secretAccessKey: 'env:LOC_TEST_S3_SECRET'},
      unsetWeb: {authorization: 'env:LOC_TEST_UNSET_TOKEN'},
      unsetS3: {accessKeyId: 'S3RVER', secretAccessKey: 'env:LOC_TEST_UNSET_SECRET'},
    },
  }})
})

afterAll(async () => {
  await server?.stop()
  s3?.destroy()
  await s3rver?.close()
  http?.closeAllConnections()
  await new Promise((resolve) => http?.close(resolve))
})

const live = false
const add = (input: Record<string, unknown>): SyncSource => addSyncSource(server.store, server.config, live, {prune: false, ...input})
const tagged = (tag: string) => server.store.sqlite.prepare('SELECT external_id FROM geofences WHERE tag = ? ORDER BY external_id').all(tag).map((r: any) => r.external_id)
const fresh = (source: SyncSource) => syncSource(server.store, source.id)!
const syncRunStatus = (id: string) => (server.store.sqlite.prepare('SELECT status FROM sync_runs WHERE id = ?').get(id) as {status: string} | undefined)?.status

describe('geofence sync from a URL', () => {
  it('imports, then skips an unchanged file, updates a changed one, and prunes only with --prune', async () => {
    files['stores.csv'] = FILE_3
    // a file import first: its stage (no sync_source column) and the sync's must not clash
    writeFileSync(path.join(server.dataDir, 'manual.csv'), HEADER.replace('sync', 'manual') + row(9).replace(',sync,', ',manual,'))
    expect(await importGeofences(server.system, path.join(server.dataDir, 'manual.csv'), {live: false})).toMatchObject({created: 1})
    const source = add({url: `${base}/stores.csv`})
    const first = await runSync(server.system, source, 'cli')
    expect(first).toMatchObject({status: 'succeeded', created: 3, updated: 0, failed: 0, error: null})
    expect(first.duration_ms).toBeGreaterThanOrEqual(0)
    expect(tagged('sync')).toEqual(['1', '2', '3'])

    const again = await runSync(server.system, fresh(source), 'cli')
    expect(again).toMatchObject({status: 'skipped', created: 0})

    files['stores.csv'] = HEADER + row(1) + row(2).replace('100', '150')
    const changed = await runSync(server.system, fresh(source), 'cli')
    expect(changed).toMatchObject({status: 'succeeded', created: 0, updated: 1, unchanged: 1, deleted: 0})
    expect(tagged('sync')).toEqual(['1', '2', '3'])

    server.store.sqlite.prepare('UPDATE sync_sources SET prune = 1 WHERE id = ?').run(source.id)
    files['stores.csv'] = HEADER + row(1)
    const pruned = await runSync(server.system, fresh(source), 'cli')
    expect(pruned).toMatchObject({status: 'succeeded', unchanged: 1, deleted: 2})
    expect(tagged('sync')).toEqual(['1'])
  })

  it('404, 500, timeout, truncated and invalid files change nothing and are recorded', async () => {
    files['bad.csv'] = HEADER + row(7) + 'x,circle,sync,8,"[7.42,43.73]",5\n'
    const cases = [
      ['missing.csv', /^HTTP 404 from http/],
      ['broken.csv', /^HTTP 500 from http/],
      ['slow.csv', /^timed out after 300 ms$/],
      ['truncated.csv', /^truncated: received \d+ of the 10000 bytes its Content-Length announced$/],
      ['dropped.csv', /^the connection closed after \d+ bytes, before the end of the file \(terminated\)$/],
      ['bad.csv', /^invalid CSV, nothing changed \(1 of 2 rows failed\): row 3, radius: range 10 to 10000 \(meters\)$/],
    ] as const
    const before = tagged('sync')
    // a short timeout only where it is the point (a loaded machine is slow for the rest)
    const quick = {...server.system, config: {...server.config, sync: {...server.config.sync, timeoutMs: 300}}}
    for (const [file, error] of cases) {
      const source = add({url: `${base}/${file}`})
      const run = await runSync(file === 'slow.csv' ? quick : server.system, source, 'cli')
      expect(run.status, file).toBe('failed')
      expect(run.error, file).toMatch(error)
      expect(run.finished_at, file).not.toBeNull()
      expect(tagged('sync'), file).toEqual(before)
      expect(server.store.sqlite.prepare('SELECT count(*) AS n FROM sync_runs WHERE source_id = ?').get(source.id)).toEqual({n: 1})
    }
  })

  it('refuses loopback and private addresses unless the config allows them', async () => {
    for (const address of ['127.0.0.1', '10.1.2.3', '192.168.0.1', '172.20.0.1', '169.254.169.254', '::1', 'fd00::1', '::ffff:127.0.0.1', '100.64.0.1']) {
      expect(isPrivateAddress(address), address).toBe(true)
    }
    for (const address of ['8.8.8.8', '1.1.1.1', '2606:4700:4700::1111']) expect(isPrivateAddress(address), address).toBe(false)
    const strict = {...server.system, config: {...server.config, sync: {...server.config.sync, allowPrivateUrls: false}}}
    files['stores2.csv'] = FILE_3
    const run = await runSync(strict, add({url: `${base}/stores2.csv`}), 'cli')
    expect(run).toMatchObject({status: 'failed', error: '127.0.0.1 is a private or loopback address; set sync.allowPrivateUrls in the config to allow it'})
    // a name is checked as the connection resolves it: the address checked is the one connected to
    const asked = authorizations.length
    const named = await runSync(strict, add({url: `http://localhost:${new URL(base).port}/stores2.csv`}), 'cli')
    expect(named).toMatchObject({status: 'failed', error: 'localhost resolves to a private or loopback address; set sync.allowPrivateUrls in the config to allow it'})
    expect(authorizations.length).toBe(asked)
  })

  it('sends the credentials profile but never stores, logs or returns them', async () => {
    files['private.csv'] = HEADER + row(20)
    authorizations = []
    const source = add({url: `${base}/private.csv`, credentials: 'web'})
    const run = await runSync(server.system, source, 'cli')
    expect(run.status).toBe('succeeded')
    expect(authorizations).toEqual([TOKEN])
    process.env.LOC_TEST_SYNC_TOKEN = 'Bearer wrong-4f9c1e7a'
    const refused = await runSync(server.system, fresh(source), 'cli')
    process.env.LOC_TEST_SYNC_TOKEN = TOKEN
    expect(refused).toMatchObject({status: 'failed', error: `HTTP 401 from ${base}/private.csv`})
    const job = await server.call('GET', `/v1/jobs/${run.id}`, {key: server.keys.testSk})
    expect(JSON.stringify(job.body)).not.toContain('tok-4f9c1e7a')
    server.store.sqlite.pragma('wal_checkpoint(TRUNCATE)')
    const stored = readFileSync(server.store.file).toString('latin1') + readFileSync(`${server.store.file}-wal`).toString('latin1')
    expect(stored).toContain('private.csv')
    expect(stored).not.toContain('tok-4f9c1e7a')
    expect(() => add({url: `${base}/x.csv`, credentials: 'nope'})).toThrow('credentials: must name a profile under sync.credentials in the config file (profiles: web, minio, unsetWeb, unsetS3)')
  })
})

describe('one source per file and environment', () => {
  it('refuses a second source of the same URL, or S3 object and endpoint, in one environment', async () => {
    const first = add({url: `${base}/twice.csv?sig=twice-secret-5c1`})
    const again = `url: the test environment already syncs ${base}/twice.csv?… (source ${first.id}); remove that source first (loc geofences sync remove ${first.id})`
    expect(() => add({url: `${base}/twice.csv?sig=twice-secret-5c1`, credentials: 'web', schedule: '0 * * * *'})).toThrow(again)
    // the same URL written another way is the same URL
    expect(() => add({url: `HTTP://127.0.0.1:${new URL(base).port}/twice.csv?sig=twice-secret-5c1`})).toThrow(again)
    const refusal = (() => {
      try {
        add({url: `${base}/twice.csv?sig=twice-secret-5c1`})
      } catch (error) {
        return error as Error
      }
    })()
    expect(refusal).toMatchObject({code: 'conflict', param: 'url'})
    expect(refusal!.message).not.toContain('twice-secret')
    // another environment, another file: fine
    const other = addSyncSource(server.store, server.config, true, {url: `${base}/twice.csv?sig=twice-secret-5c1`, prune: false})
    const s3 = add({s3: 's3://geofence-files/twice.csv', endpoint})
    expect(() => add({s3: 's3://geofence-files/twice.csv', endpoint: `${endpoint}/`, region: 'eu-west-1'})).toThrow(`s3: the test environment already syncs s3://geofence-files/twice.csv (source ${s3.id})`)
    const aws = add({s3: 's3://geofence-files/twice.csv'})
    for (const source of [first, other, s3, aws]) removeSyncSource(server.store, source.id)
  })
})

describe('credentials and redirects', () => {
  const redirect = (to: string) => `${base}/redirect?to=${encodeURIComponent(to)}`
  it('keeps the credentials on a redirect within the origin, drops them for good once it leaves it', async () => {
    const port = new URL(base).port
    files['open.csv'] = HEADER.replace('sync', 'open') + row(61).replace(',sync,', ',open,')
    files['private.csv'] = HEADER + row(20)

    requests = []
    const same = await runSync(server.system, add({url: redirect('/private.csv'), credentials: 'web'}), 'cli')
    expect(same.status).toBe('succeeded')
    expect(requests.map((r) => r.authorization)).toEqual([TOKEN, TOKEN])

    // 127.0.0.1 → localhost: same server, another origin (scheme, host and port are the origin)
    requests = []
    const other = await runSync(server.system, add({url: redirect(`http://localhost:${port}/open.csv`), credentials: 'web'}), 'cli')
    expect(other.status).toBe('succeeded')
    expect(requests).toEqual([
      {host: `127.0.0.1:${port}`, path: expect.stringMatching(/^\/redirect/), authorization: TOKEN},
      {host: `localhost:${port}`, path: '/open.csv', authorization: undefined},
    ])

    // away and back again: a hop after the origin changed never gets them back
    requests = []
    const back = await runSync(server.system, add({url: redirect(`http://localhost:${port}/redirect?to=${encodeURIComponent(`${base}/private.csv`)}`), credentials: 'web'}), 'cli')
    expect(back).toMatchObject({status: 'failed', error: `HTTP 401 from ${base}/private.csv`})
    expect(requests.map((r) => r.authorization)).toEqual([TOKEN, undefined, undefined])
  })
})

describe('a credentials profile that cannot be used', () => {
  it('fails the run before any download, naming the profile and the variable, never falling back', async () => {
    delete process.env.LOC_TEST_UNSET_TOKEN
    delete process.env.LOC_TEST_UNSET_SECRET
    files['open.csv'] = HEADER.replace('sync', 'open') + row(61).replace(',sync,', ',open,')
    requests = []
    const url = await runSync(server.system, add({url: `${base}/open.csv`, credentials: 'unsetWeb'}), 'cli')
    expect(url).toMatchObject({status: 'failed', error: 'credentials "unsetWeb": environment variable LOC_TEST_UNSET_TOKEN is not set'})
    expect(requests).toEqual([])

    // the SDK's ambient credentials would sign (s3rver takes S3RVER), but the source named a profile
    await s3.send(new PutObjectCommand({Bucket: 'geofence-files', Key: 'ambient.csv', Body: HEADER.replace('sync', 'ambient') + row(71).replace(',sync,', ',ambient,')}))
    Object.assign(process.env, {AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: S3_SECRET})
    try {
      const ambient = add({s3: 's3://geofence-files/ambient.csv', endpoint, credentials: 'unsetS3'})
      const s3Run = await runSync(server.system, ambient, 'cli')
      expect(s3Run).toMatchObject({status: 'failed', error: 'credentials "unsetS3": environment variable LOC_TEST_UNSET_SECRET is not set'})
      expect(tagged('ambient')).toEqual([])
      process.env.LOC_TEST_UNSET_SECRET = ''
      expect(await runSync(server.system, fresh(ambient), 'cli'))
        .toMatchObject({status: 'failed', error: 'credentials "unsetS3": environment variable LOC_TEST_UNSET_SECRET is empty'})
      // only a source without a profile uses the default chain
      removeSyncSource(server.store, ambient.id)
      expect(await runSync(server.system, add({s3: 's3://geofence-files/ambient.csv', endpoint}), 'cli')).toMatchObject({status: 'succeeded', created: 1})
    } finally {
      delete process.env.AWS_ACCESS_KEY_ID
      delete process.env.AWS_SECRET_ACCESS_KEY
      delete process.env.LOC_TEST_UNSET_SECRET
    }

    // a profile of the other kind: refused when added, and failed when the config changed since
    expect(() => add({url: `${base}/open.csv`, credentials: 'minio'})).toThrow('credentials: profile "minio" has no authorization, which URL sources need')
    expect(() => add({s3: 's3://geofence-files/ambient.csv', endpoint, credentials: 'web'})).toThrow('credentials: profile "web" has no accessKeyId or secretAccessKey, which S3 sources need')
    const source = add({url: `${base}/open.csv?misfit`, credentials: 'web'})
    server.store.sqlite.prepare("UPDATE sync_sources SET credentials = 'minio' WHERE id = ?").run(source.id)
    requests = []
    expect(await runSync(server.system, fresh(source), 'cli')).toMatchObject({status: 'failed', error: 'credentials "minio" has no authorization, which URL sources need'})
    expect(requests).toEqual([])

    // profiles are read when the process starts: one added to the file since is not seen
    const before = {...server.system, config: {...server.config, sync: {...server.config.sync, credentials: {}}}}
    expect(await runSync(before, add({url: `${base}/open.csv?new-profile`, credentials: 'web'}), 'cli')).toMatchObject({status: 'failed',
      error: 'credentials profile "web" is not in the config this process read when it started (sync.credentials); restart `loc serve` after adding or changing a profile'})
  })
})

describe('the User-Agent of a download', () => {
  it('is loc/<version>, from a URL and (after the SDK\'s own) from S3', async () => {
    const version = JSON.parse(readFileSync('package.json', 'utf8')).version
    files['agent.csv'] = HEADER.replace('sync', 'agent') + row(91).replace(',sync,', ',agent,')
    // this server as an S3 endpoint: path-style GET /bucket/key
    files['geofence-files/agent.csv'] = files['agent.csv']
    userAgents = []
    expect(await runSync(server.system, add({url: `${base}/agent.csv`}), 'cli')).toMatchObject({status: 'succeeded'})
    expect(userAgents).toEqual([`loc/${version}`])
    userAgents = []
    expect(await runSync(server.system, add({s3: 's3://geofence-files/agent.csv', endpoint: base, credentials: 'minio'}), 'cli')).toMatchObject({status: 'succeeded'})
    expect(userAgents).toHaveLength(1)
    expect(userAgents[0]).toMatch(new RegExp(`^aws-sdk-js/.* loc/${version.replace(/\./g, '\\.')}$`))
  })
})

describe('the log line of a run', () => {
  it('is info for a run that worked, warn for one that failed, with every count and no secret', async () => {
    const lines: any[] = []
    const logged = {...server.system, log: createLogger('debug', {write: (line: string) => void lines.push(JSON.parse(line))})}
    files['logged.csv'] = HEADER.replace('sync', 'logged') + row(81).replace(',sync,', ',logged,')
    const source = add({url: `${base}/logged.csv?sig=signed-9d2e4b`, credentials: 'web'})
    await runSync(logged, source, 'cli')
    files['logged.csv'] += row(82).replace(',sync,', ',logged,')
    await runSync(logged, fresh(source), 'api')
    const failed = await runSync(logged, add({url: `${base}/missing.csv?sig=signed-9d2e4b`, credentials: 'web'}), 'schedule')
    expect(lines.map((l) => [l.level, l.msg, l.status, l.created, l.unchanged])).toEqual([
      [30, 'geofence sync', 'succeeded', 1, 0],
      [30, 'geofence sync', 'succeeded', 1, 1],
      [40, 'geofence sync', 'failed', 0, 0],
    ])
    expect(lines[2]).toMatchObject({url: `${base}/missing.csv?…`, error: `HTTP 404 from ${base}/missing.csv?…`})
    const job = await server.call('GET', `/v1/jobs/${failed.id}`, {key: server.keys.testSk})
    for (const text of [JSON.stringify(lines), JSON.stringify(job.body)]) {
      expect(text).not.toContain('signed-9d2e4b')
      expect(text).not.toContain('tok-4f9c1e7a')
    }
  })
})

describe('geofence sync from S3', () => {
  it('downloads through the AWS SDK from an S3-compatible server, skipping by ETag', async () => {
    await s3.send(new PutObjectCommand({Bucket: 'geofence-files', Key: 'nightly/stores.csv', Body: HEADER.replace('sync', 's3') + row(31).replace('sync', 's3') + row(32).replace('sync', 's3')}))
    const source = add({s3: 's3://geofence-files/nightly/stores.csv', endpoint, credentials: 'minio'})
    expect(await runSync(server.system, source, 'cli')).toMatchObject({status: 'succeeded', created: 2})
    expect(tagged('s3')).toEqual(['31', '32'])
    const skipped = await runSync(server.system, fresh(source), 'cli')
    expect(skipped.status).toBe('skipped')
    const missing = await runSync(server.system, add({s3: 's3://geofence-files/none.csv', endpoint, credentials: 'minio'}), 'cli')
    expect(missing).toMatchObject({status: 'failed', error: 'S3 NoSuchKey (HTTP 404) for s3://geofence-files/none.csv'})
  })
})

describe('the scheduler loc serve runs', () => {
  it('sweeps the downloads runs of ended processes left in <dataDir>/tmp when it starts', async () => {
    const source = add({url: `${base}/sweep.csv`, schedule: '0 0 1 1 *'})
    const ended = spawnSync('node', ['-e', '']).pid!
    const tmp = path.join(server.dataDir, 'tmp')
    mkdirSync(tmp, {recursive: true})
    const insert = server.store.sqlite.prepare("INSERT INTO sync_runs (id, source_id, live, trigger, status, started_at, pid, host) VALUES (?, ?, 0, 'cli', ?, ?, ?, ?)")
    insert.run('killed', source.id, 'running', new Date().toISOString(), ended, hostname())
    insert.run('elsewhere', source.id, 'running', new Date().toISOString(), process.ppid, hostname())
    insert.run('finished', source.id, 'failed', new Date().toISOString(), ended, hostname())
    for (const id of ['killed', 'elsewhere', 'finished', 'unknown']) writeFileSync(path.join(tmp, `sync-${id}.csv`), HEADER)
    writeFileSync(path.join(tmp, 'not-a-sync.csv'), HEADER)
    await startSyncScheduler(server.system).stop()
    // kept: the file of a run still running in a live process, and what is not a sync's
    expect(readdirSync(tmp).sort()).toEqual(['not-a-sync.csv', 'sync-elsewhere.csv'])
    expect(syncRunStatus('killed')).toBe('failed')
    removeSyncSource(server.store, source.id)
    rmSync(tmp, {recursive: true})
  })


  it('runs each source on its cron schedule and records the run', async () => {
    files['cron.csv'] = HEADER.replace('sync', 'cron') + row(51).replace(',sync,', ',cron,')
    const source = add({url: `${base}/cron.csv`, schedule: '* * * * * *'})
    const scheduler = startSyncScheduler(server.system)
    try {
      let runs: Array<{trigger: string; status: string}> = []
      for (let i = 0; i < 60 && !runs.length; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        runs = server.store.sqlite.prepare("SELECT trigger, status FROM sync_runs WHERE source_id = ? AND status != 'running'").all(source.id) as typeof runs
      }
      expect(runs[0]).toEqual({trigger: 'schedule', status: 'succeeded'})
      expect(tagged('cron')).toEqual(['51'])
    } finally {
      await scheduler.stop()
    }
  })
})

describe('POST /v1/geofences/sync and GET /v1/jobs/:id', () => {
  it('starts a sync (202 with a job) that the running server then serves, and followers hear of', async () => {
    const api = await startTestServer({sync: {allowPrivateUrls: true}})
    try {
      const key = api.keys.liveSk
      expect((await api.call('POST', '/v1/geofences/sync', {key, body: {}})).body.meta).toMatchObject({code: 404, message: 'sync source not found'})
      files['api.csv'] = HEADER.replace('sync', 'api') + row(41).replace(',sync,', ',api,') + row(42).replace(',sync,', ',api,')
      const source = addSyncSource(api.store, api.config, true, {url: `${base}/api.csv`, prune: false})
      const seen: Change[] = []
      api.store.feed.follow({kinds: ['geofences'], rebuild() {}, apply: (changes) => seen.push(...changes), threshold: 1_000_000})

      expect((await api.call('POST', '/v1/geofences/sync', {key: api.keys.livePk, body: {}})).status).toBe(403)
      expect((await api.call('POST', '/v1/geofences/sync', {key, body: {sourceId: 'nope'}})).status).toBe(404)
      expect((await api.call('POST', '/v1/geofences/sync', {key: api.keys.testSk, body: {}})).status).toBe(404)
      const started = await api.call('POST', '/v1/geofences/sync', {key, body: {}})
      expect(started.status).toBe(202)
      expect(started.body.job).toMatchObject({type: 'geofences.sync', status: 'running', trigger: 'api', live: true, source: {_id: source.id, url: `${base}/api.csv`}})
      let job = started.body.job
      for (let i = 0; i < 100 && job.status === 'running'; i++) {
        await new Promise((resolve) => setTimeout(resolve, 20))
        job = (await api.call('GET', `/v1/jobs/${job._id}`, {key})).body.job
      }
      expect(job).toMatchObject({status: 'succeeded', counts: {created: 2, updated: 0, unchanged: 0, deleted: 0, failed: 0}})
      expect(job.durationMs).toBeGreaterThanOrEqual(0)
      const list = await api.call('GET', '/v1/geofences?tag=api', {key})
      expect(list.body.geofences.map((g: any) => g.externalId).sort()).toEqual(['41', '42'])
      api.store.feed.catchUp()
      expect(seen.filter((c) => c.kind === 'geofences' && !c.deleted)).toHaveLength(2)
      expect((await api.call('GET', `/v1/jobs/${job._id}`, {key: api.keys.testSk})).status).toBe(404)
      expect((await api.call('GET', '/v1/jobs/nope', {key})).body.meta).toMatchObject({code: 404, message: 'job not found'})

      // fuzz: seeded bad values for the one parameter never start a run nor answer 500
      let seed = 7
      const pick = <T>(values: T[]) => values[(seed = (seed * 48271) % 2147483647) % values.length]
      const bad = [null, 0, -1, 1.5, true, [], {}, [source.id], {$gt: ''}, '', 'x'.repeat(5000), '\u0000', '../../etc', `${source.id} `]
      const runsBefore = api.store.sqlite.prepare('SELECT count(*) AS n FROM sync_runs').get()
      for (let i = 0; i < 40; i++) {
        const response = await api.call('POST', '/v1/geofences/sync', {key, body: {sourceId: pick(bad)}})
        expect([400, 404], JSON.stringify(response.body)).toContain(response.status)
        if (response.status === 400) expect(response.body.meta.param).toBe('sourceId')
      }
      expect(api.store.sqlite.prepare('SELECT count(*) AS n FROM sync_runs').get()).toEqual(runsBefore)
    } finally {
      await api.stop()
    }
  })
})
