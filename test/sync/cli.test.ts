import {execFile, spawn} from 'node:child_process'
import {readdirSync, rmSync, writeFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import path from 'node:path'
import {promisify} from 'node:util'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {spawnServe, startTestServer, tempDir} from '../helpers.js'

const run = promisify(execFile)
const BIN = path.resolve('bin/run.js')
const SECRET = 'Bearer cli-secret-83b1d2-never-shown'
let dataDir: string
let http: Server
let base: string
let slowAsked: () => void
const slowAskedFor = new Promise<void>((resolve) => (slowAsked = resolve))

async function loc(args: string[], env: Record<string, string> = {}): Promise<{code: number; stdout: string; stderr: string}> {
  try {
    const {stdout, stderr} = await run('node', [BIN, ...args], {env: {...process.env, LOC_DATA_DIR: dataDir, LOC_LOG_LEVEL: 'silent', ...env}})
    return {code: 0, stdout, stderr}
  } catch (error) {
    const e = error as {code: number; stdout: string; stderr: string}
    return {code: e.code, stdout: e.stdout, stderr: e.stderr}
  }
}

beforeAll(async () => {
  dataDir = tempDir('loc-cli-sync-')
  http = createServer((req, res) => {
    if (req.url === '/slow.csv') {
      // headers and a first line, then nothing: the sync waits until it is killed
      res.writeHead(200, {'content-type': 'text/csv'}).write('description,type,tag,externalId,coordinates,radius\n')
      return slowAsked()
    }
    if (req.url === '/many.csv') {
      const rows = Array.from({length: 1000}, (_, i) => `Stop ${i},circle,stop,s${i},"[7.42,43.73]",50\n`)
      return res.writeHead(200, {'content-type': 'text/csv'}).end(`description,type,tag,externalId,coordinates,radius\n${rows.join('')}`)
    }
    if (req.headers.authorization !== SECRET) return res.writeHead(401).end()
    res.writeHead(200, {'content-type': 'text/csv'}).end('description,type,tag,externalId,coordinates,radius\nDepot,circle,depot,d1,"[7.42,43.73]",80\n')
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
})
afterAll(async () => {
  http.closeAllConnections()
  await new Promise((resolve) => http.close(resolve))
  rmSync(dataDir, {recursive: true, force: true})
})

describe('loc geofences import / sync', () => {
  it('a running loc serve sees an import at once; a bad file changes nothing and lists its rows', async () => {
    const key = (await loc(['keys', 'create', '--type', 'secret', '--env', 'test'])).stdout.trim()
    const server = await spawnServe([], {LOC_DATA_DIR: dataDir})
    const venues = async () => (await (await fetch(`${server.url}/v1/geofences?tag=venue`, {headers: {authorization: key}})).json()).geofences.length
    try {
      expect(await venues()).toBe(0)
      const imported = await loc(['geofences', 'import', 'docs/examples/geofences.csv', '--env', 'test'])
      expect(imported).toMatchObject({code: 0, stdout: 'geofences imported (test): 4 created, 0 updated, 0 unchanged, 0 failed of 4 rows\n'})
      expect(await venues()).toBe(4)
      // the README's next step: a walk past the port and the casino, replayed on a scratch copy
      const walked = await loc(['simulate', 'docs/examples/trace.csv', '--user', 'walker', '--env', 'test', '--dry-run'])
      expect(walked).toMatchObject({code: 0, stdout: [
        '2026-11-23T14:02:00.000Z  user.entered_geofence                    venue/port Port Hercule confidence=3',
        '2026-11-23T14:07:00.000Z  user.exited_geofence                     venue/port Port Hercule confidence=3 duration=5 min',
        '2026-11-23T14:09:00.000Z  user.entered_geofence                    venue/casino Casino de Monte-Carlo confidence=3',
        '2026-11-23T14:20:00.000Z  user.exited_geofence                     venue/casino Casino de Monte-Carlo confidence=3 duration=11 min',
        '9 points, 4 events: 2 user.entered_geofence, 2 user.exited_geofence (dry run: nothing kept)',
        ''].join('\n')})

      const bad = path.join(dataDir, 'bad.csv')
      writeFileSync(bad, 'description,type,tag,externalId,coordinates,radius\r\nA,circle,venue,new,"[7.42,43.73]",50\r\nB,circle,venue,casino,"[7.42,43.73]",5\r\n')
      const refused = await loc(['geofences', 'import', bad, '--env', 'test'])
      expect(refused.code).toBe(2)
      expect(refused.stdout).toBe('')
      expect(refused.stderr).toBe('row 3, radius: range 10 to 10000 (meters)\n' +
        'error [invalid_parameter]: nothing imported (test): 1 of 2 rows failed; fix them or use --partial to import the valid rows\n')
      expect(await venues()).toBe(4)
    } finally {
      expect(await server.stop()).toBe(0)
    }
  }, 120_000)

  it('the next /v1/track after a CLI import enters the imported geofences', async () => {
    const server = await startTestServer()
    try {
      const track = (deviceId: string) => server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId, latitude: 43.7396, longitude: 7.4286, accuracy: 10}})
      expect((await track('before')).body.events).toEqual([])
      const imported = await loc(['geofences', 'import', 'docs/examples/geofences.csv', '--env', 'test'], {LOC_DATA_DIR: server.dataDir})
      expect(imported.code).toBe(0)
      const entered = await track('after')
      expect(entered.body.events.map((e: any) => [e.type, e.geofence.tag, e.geofence.externalId])).toEqual([['user.entered_geofence', 'venue', 'casino']])
      expect(entered.body.user.geofences.map((g: any) => g.description)).toEqual(['Casino de Monte-Carlo'])
    } finally {
      await server.stop()
    }
  }, 60_000)

  it('sync add|run|list|remove with a credentials profile that never appears in output, logs or the database', async () => {
    const config = path.join(dataDir, 'sync.json')
    writeFileSync(config, JSON.stringify({sync: {allowPrivateUrls: true, credentials: {depot: {authorization: 'env:DEPOT_TOKEN'}}}}))
    const env = {DEPOT_TOKEN: SECRET, LOC_LOG_LEVEL: 'debug'}
    // a signed URL: its query is a secret too
    const url = `${base}/depots.csv?sig=cli-sig-77a1`
    const added = await loc(['geofences', 'sync', 'add', '--url', url, '--credentials', 'depot', '--env', 'test', '--config', config], env)
    expect(added.code).toBe(0)
    expect(added.stderr).toContain('a running `loc serve` reads sync.credentials when it starts: restart it if profile "depot" is new or changed')
    const id = added.stdout.trim()
    const twice = await loc(['geofences', 'sync', 'add', '--url', url, '--env', 'test', '--config', config], env)
    expect(twice).toMatchObject({code: 1, stdout: ''})
    expect(twice.stderr).toContain(`url: the test environment already syncs ${base}/depots.csv?… (source ${id})`)
    const ran = await loc(['geofences', 'sync', 'run', id, '--config', config], env)
    expect(ran.code).toBe(0)
    // stdout is the result line alone; the logs (JSON, at LOC_LOG_LEVEL) go to stderr
    expect(ran.stdout).toMatch(/^\S+ cli {6}succeeded 1 created, 0 updated, 0 unchanged, 0 deleted, 0 failed in \d+\.\d s\n$/)
    expect(ran.stderr).toContain('"msg":"geofence sync"')
    expect(ran.stderr.split('\n')[0]).toBe(`syncing ${base}/depots.csv?…`)
    // a failed run: its line on stderr, nothing on stdout, exit 1
    const failed = await loc(['geofences', 'sync', 'run', id, '--config', config], {...env, DEPOT_TOKEN: 'Bearer wrong-83b1d2'})
    expect(failed).toMatchObject({code: 1, stdout: ''})
    expect(failed.stderr).toMatch(/cli {6}failed in \d+\.\d s — HTTP 401 from http:\/\/127\.0\.0\.1:\d+\/depots\.csv\?…\n/)
    const list = await loc(['geofences', 'sync', 'list', '--config', config], env)
    expect(list.stdout).toContain(`${id}  ${base}/depots.csv?…  test, schedule "0 3 * * *", credentials depot`)
    for (const out of [added, twice, ran, failed, list]) {
      expect(out.stdout + out.stderr).not.toContain('83b1d2')
      expect(out.stdout + out.stderr).not.toContain('cli-sig-77a1')
    }
    const db = new Database(path.join(dataDir, 'loc.db'), {readonly: true})
    const dump = JSON.stringify([db.prepare('SELECT * FROM sync_sources').all(), db.prepare('SELECT * FROM sync_runs').all()])
    db.close()
    expect(dump).toContain('depot')
    expect(dump).not.toContain('83b1d2')
    expect((await loc(['geofences', 'sync', 'remove', id])).stdout).toBe(`removed sync source ${id} (its geofences are kept)\n`)
  }, 120_000)

  it('sync run and sync list print a run\'s counts with thousands separators', async () => {
    const config = path.join(dataDir, 'many.json')
    writeFileSync(config, JSON.stringify({sync: {allowPrivateUrls: true}}))
    const id = (await loc(['geofences', 'sync', 'add', '--url', `${base}/many.csv`, '--env', 'live', '--config', config])).stdout.trim()
    const ran = await loc(['geofences', 'sync', 'run', id, '--config', config])
    expect(ran.stdout).toMatch(/^\S+ cli {6}succeeded 1,000 created, 0 updated, 0 unchanged, 0 deleted, 0 failed in \d+\.\d s\n$/)
    expect((await loc(['geofences', 'sync', 'list', '--config', config])).stdout).toContain(' succeeded 1,000 created, 0 updated,')
    expect((await loc(['geofences', 'sync', 'remove', id])).code).toBe(0)
  }, 60_000)

  it('a sync whose process was killed is marked failed with the reason', async () => {
    const config = path.join(dataDir, 'private.json')
    writeFileSync(config, JSON.stringify({sync: {allowPrivateUrls: true}}))
    const id = (await loc(['geofences', 'sync', 'add', '--url', `${base}/slow.csv`, '--env', 'test', '--config', config])).stdout.trim()
    const child = spawn('node', [BIN, 'geofences', 'sync', 'run', id, '--config', config], {env: {...process.env, LOC_DATA_DIR: dataDir, LOC_LOG_LEVEL: 'silent'}})
    const exited = new Promise((resolve) => child.once('exit', resolve))
    await slowAskedFor
    const downloads = () => readdirSync(path.join(dataDir, 'tmp')).filter((name) => name.startsWith('sync-'))
    // killed once its download is on disk
    for (let i = 0; i < 100 && !downloads().length; i++) await new Promise((resolve) => setTimeout(resolve, 50))
    child.kill('SIGKILL')
    await exited
    expect(downloads()).toHaveLength(1)
    const list = await loc(['geofences', 'sync', 'list', '--config', config])
    expect(list.stdout).toContain(`cli      failed — the process running this sync (pid ${child.pid}) ended before the run finished; nothing was changed`)
    // the next sync to start sweeps the killed run's download
    const other = (await loc(['geofences', 'sync', 'add', '--url', `${base}/other.csv`, '--env', 'test', '--config', config])).stdout.trim()
    expect((await loc(['geofences', 'sync', 'run', other, '--config', config])).code).toBe(1)
    expect(downloads()).toEqual([])
    for (const source of [id, other]) await loc(['geofences', 'sync', 'remove', source])
  }, 60_000)
})
