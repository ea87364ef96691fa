import {spawn} from 'node:child_process'
import {chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import {createServer} from 'node:http'
import type {AddressInfo} from 'node:net'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {runLoc, spawnServe, tempDir} from '../helpers.js'

const BIN = path.resolve('bin/run.js')
let dataDir: string

/** `loc ...` on the temp data dir. */
const loc = (...args: string[]) => runLoc(args, {LOC_DATA_DIR: dataDir})

beforeAll(() => {
  dataDir = tempDir('loc-cli-')
})
afterAll(() => rmSync(dataDir, {recursive: true, force: true}))

describe('loc CLI', () => {
  it('lists every command in --help and documents each one', async () => {
    const {stdout} = await loc('--help')
    for (const command of ['init', 'serve', 'status', 'migrate', 'keys', 'settings']) expect(stdout).toContain(command)
    const commands = ['serve', 'keys create', 'keys list', 'keys revoke', 'settings set', 'settings get', 'settings list', 'status', 'migrate', 'init']
    const helps = await Promise.all(commands.map((command) => loc(...command.split(' '), '--help')))
    helps.forEach((help, i) => {
      expect(help.code, commands[i]).toBe(0)
      expect(help.stdout, commands[i]).toMatch(/EXAMPLES/)
    })
  })

  it('help: each topic its own description; loc help COMMAND and -h show the command\'s help', async () => {
    const root = (await loc('--help')).stdout
    expect(root).toMatch(/^ {2}geofences +Import geofences from CSV; keep them in sync with a CSV at a URL or$/m)
    expect(root).toMatch(/^ {2}beacons +Import beacons from CSV$/m)
    expect((await loc('help', 'geofences', 'sync')).stdout).toMatch(/^Add, list, run and remove scheduled CSV syncs of geofences\n/)
    expect((await loc('help', 'maps')).stdout).toMatch(/maps markers +Upload marker images for static maps/)
    const page = await loc('keys', 'create', '--help')
    for (const args of [['help', 'keys', 'create'], ['keys', 'create', '-h']]) {
      const res = await loc(...args)
      expect({args, code: res.code, stdout: res.stdout}).toEqual({args, code: 0, stdout: page.stdout})
    }
    const unknown = await loc('help', 'nope')
    expect(unknown).toMatchObject({code: 2, stderr: 'error [invalid_parameter]: command: nope is not a loc command; see loc --help\n'})
  })

  it('migrate creates the database, then finds it up to date', async () => {
    const first = await loc('migrate')
    expect(first.code).toBe(0)
    expect(first.stdout).toContain('applied: 001_initial')
    const second = await loc('migrate')
    expect(second.stdout).toContain('is up to date')
  })

  it('keys create prints a key that works on the API; revoke makes it fail; serve stops gracefully', async () => {
    const created = await loc('keys', 'create', '--type', 'secret', '--env', 'test')
    expect(created.code).toBe(0)
    const key = created.stdout.trim()
    expect(key).toMatch(/^prj_test_sk_[0-9a-f]{40}$/)
    expect(created.stderr).toContain('will not be shown again')

    const list = await loc('keys', 'list')
    const [header, row] = list.stdout.split('\n')
    expect(header).toMatch(/^PREFIX +TYPE +ENV +STATE +CREATED$/)
    expect(row).toMatch(new RegExp(`^${key.slice(0, 20)}  secret  test  active  \\d{4}-`))
    expect(list.stdout).not.toContain(key)

    const server = await spawnServe([], {LOC_DATA_DIR: dataDir})
    try {
      expect((await fetch(`${server.url}/v1/settings`, {headers: {authorization: key}})).status).toBe(200)
      const revoked = await loc('keys', 'revoke', key.slice(0, 20))
      expect(revoked.code).toBe(0)
      expect(revoked.stdout).toBe(`revoked ${key.slice(0, 20)} (secret test)\n`)
      expect((await fetch(`${server.url}/v1/settings`, {headers: {authorization: key}})).status).toBe(401)
      const again = await loc('keys', 'revoke', key.slice(0, 20))
      expect(again.code).toBe(0)
      expect(again.stdout).toMatch(new RegExp(`^${key.slice(0, 20)} \\(secret test\\) was already revoked at \\d{4}-\\d{2}-\\d{2}T[\\d:.]+Z; nothing changed\\n$`))
    } finally {
      expect(await server.stop()).toBe(0)
      expect(server.output()).toContain('loc stopped')
    }
    const unknown = await loc('keys', 'revoke', 'prj_live_pk_ffffffff')
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toContain('no key matches')
  })

  it('settings set validates, get and list read back', async () => {
    const bad = await loc('settings', 'set', 'geofences.minConfidence', '7')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('error [invalid_parameter]: geofences.minConfidence: must be at most 3')
    const unknown = await loc('settings', 'set', 'no.such', '1')
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toContain('unknown setting')
    expect((await loc('settings', 'get', 'geofences.minConfidence')).stdout.trim()).toBe('2')

    expect((await loc('settings', 'set', 'geofences.minConfidence', '3', '--env', 'live')).code).toBe(0)
    expect((await loc('settings', 'get', 'geofences.minConfidence', '--env', 'live')).stdout.trim()).toBe('3')
    expect((await loc('settings', 'get', 'geofences.minConfidence', '--env', 'test')).stdout.trim()).toBe('2')
    const list = await loc('settings', 'list', '--env', 'live')
    expect(list.stdout).toMatch(/geofences\.minConfidence\s+3/)
    expect(list.stdout).toMatch(/trips\.expireAfterHours\s+24/)
  })

  it('settings set prints the value as stored, and refuses a bad entry by its place', async () => {
    const set = await loc('settings', 'set', 'security.blockedCountries', '["kp", "IR", "KP"]', '--env', 'test')
    expect(set.stdout.trim()).toBe('security.blockedCountries = ["KP","IR"] (test)')
    const bad = await loc('settings', 'set', 'security.blockedCountries', '["FR", "XX"]', '--env', 'test')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/^error \[invalid_parameter\]: security\.blockedCountries\.1: each must be an ISO 3166-1 alpha-2 /m)
    expect((await loc('settings', 'get', 'security.blockedCountries', '--env', 'test')).stdout.trim()).toBe('["KP","IR"]')
  })

  it('status shows the database, counts and key prefixes', async () => {
    const {stdout, code} = await loc('status')
    expect(code).toBe(0)
    expect(stdout).toContain(path.join(dataDir, 'loc.db'))
    expect(stdout).toMatch(/geofences\s+0\s+0/)
    expect(stdout).toMatch(/requests \d{4}-\d{2}\s+1\s+0\n/) // the one request the keys test got answered
    // the header, resources and requests in one layout: the columns end where the header's do
    const table = stdout.slice(stdout.indexOf('resources'), stdout.indexOf('extracts')).trimEnd().split('\n')
    expect(table).toHaveLength(7)
    for (const line of table) expect(line.length, line).toBe(table[0].length)
    expect(stdout).toMatch(/prj_test_sk_[0-9a-f]{8}\s+secret test \(revoked\)/)
  })

  it('every refusal is one line on stderr, `error [code]: message`, with the documented exit code', async () => {
    const dir = tempDir('loc-refusals-')
    try {
      const ragged = path.join(dir, 'ragged.csv')
      writeFileSync(ragged, 'latitude,longitude,accuracy\n43.73,7.42\n')
      const notPbf = path.join(dir, 'notes.osm.pbf')
      writeFileSync(notPbf, 'latitude,longitude\n')
      const cases: [string[], RegExp][] = [
        [['nope'], /^error \[invalid_parameter\]: command: nope is not a loc command; see loc --help$/],
        [['keys', 'nope'], /^error \[invalid_parameter\]: command: loc keys nope is not a command; see loc keys --help$/],
        [['keys', 'list', 'extra'], /^error \[invalid_parameter\]: extra: unexpected argument; see loc keys list --help$/],
        [['keys', 'create', '--bogus'], /^error \[invalid_parameter\]: --bogus: no such flag; see loc keys create --help$/],
        [['keys', 'create', '--type', 'secret'], /^error \[invalid_parameter\]: --env: required; see loc keys create --help$/],
        [['keys', 'create', '--type', 'foo', '--env', 'test'], /^error \[invalid_parameter\]: --type: one of publishable, secret \(got foo\); see loc keys create --help$/],
        [['keys', 'revoke'], /^error \[invalid_parameter\]: prefix: required; see loc keys revoke --help$/],
        [['init', '--yes', '--port', '70000'], /^error \[invalid_parameter\]: --port: expected an integer less than or equal to 65535/],
        [['settings', 'get', 'nope'], /^error \[invalid_parameter\]: nope: unknown setting; known: geofences\./],
        [['status', '--config', path.join(dir, 'none.json')], /^error \[invalid_parameter\]: cannot read config file/],
        [['simulate', ragged, '--user', 'u', '--dry-run'], /^error \[invalid_parameter\]: line 2: 3 cells like the header \(has 2\)$/],
        [['import', 'osm', path.join(dir, 'none.osm.pbf'), '--data-dir', dir], /^error \[invalid_parameter\]: file: must be an OSM PBF extract \(.*none\.osm\.pbf does not exist\)$/],
        [['import', 'osm', dir, '--data-dir', dir], /^error \[invalid_parameter\]: file: must be an OSM PBF extract \(.* is a directory\)$/],
        [['import', 'osm', notPbf, '--data-dir', dir], /^error \[invalid_parameter\]: file: must be an OSM PBF extract \(.*not an OSM PBF file\?\); the map store is unchanged$/],
        [['import', 'osm', 'data/monaco.osm.pbf', '--region', '../evil', '--data-dir', dir], /^error \[invalid_parameter\]: --region: must be letters a-z \(any case\), digits, - and _/],
        [['serve', '--host', '999.1.1.1', '--port', '0'], /^error \[invalid_parameter\]: host: 999\.1\.1\.1 does not resolve to an address/],
        [['init', '--config', path.join(dir, 'local.json')], /^error \[invalid_parameter\]: --yes: required without a terminal/],
      ]
      for (const [args, expected] of cases) {
        const res = await loc(...args)
        expect({args, code: res.code, stdout: res.stdout}).toEqual({args, code: 2, stdout: ''})
        expect(res.stderr.split('\n'), args.join(' ')).toHaveLength(2) // one line and its newline
        expect(res.stderr.trim(), args.join(' ')).toMatch(expected)
      }
      expect(existsSync(path.join(dir, 'local.json'))).toBe(false)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }, 120_000)

  it('read-only commands refuse a data dir without a store and create nothing; a write creates one and says so', async () => {
    const dir = tempDir('loc-typo-')
    try {
      const typo = path.join(dir, 'typo')
      for (const args of [['keys', 'list'], ['status'], ['settings', 'get', 'geofences.minConfidence'], ['settings', 'list'], ['keys', 'revoke', 'prj_test_sk_'],
        ['simulate', 'docs/examples/trace.csv', '--user', 'u', '--dry-run'], ['webhooks', 'list'], ['webhooks', 'deliveries'], ['geofences', 'sync', 'list']]) {
        const res = await loc(...args, '--data-dir', typo)
        expect({args, code: res.code, stdout: res.stdout}).toEqual({args, code: 2, stdout: ''})
        expect(res.stderr).toBe(`error [invalid_parameter]: data-dir: no store at ${typo}; run \`loc init\`, or give the data directory of an existing store (--data-dir, LOC_DATA_DIR)\n`)
        expect(existsSync(typo)).toBe(false)
      }
      const created = await loc('keys', 'create', '--type', 'secret', '--env', 'test', '--data-dir', typo)
      expect(created.code).toBe(0)
      expect(created.stderr).toContain(`created a new store: ${path.join(typo, 'loc.db')}\n`)
      expect((await loc('keys', 'list', '--data-dir', typo)).stdout).toMatch(/prj_test_sk_/)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }, 60_000)

  it('a data dir that cannot be created is refused on one line, exit 2, by every command that opens one; nothing is written', async () => {
    const dir = tempDir('loc-no-dir-')
    try {
      const file = path.join(dir, 'plain')
      writeFileSync(file, 'not a directory\n')
      const bad = path.join(file, 'data')
      const configFile = path.join(dir, 'local.json')
      for (const args of [['init', '--yes', '--config', configFile], ['keys', 'create', '--type', 'secret', '--env', 'test'], ['migrate'],
        ['serve', '--port', '0'], ['serve', '--port', '0', '--workers', '2'], ['import', 'osm', 'data/monaco.osm.pbf'],
        ['geofences', 'import', 'docs/examples/geofences.csv', '--env', 'test'], ['geofences', 'sync', 'add', '--url', 'https://example.com/g.csv', '--env', 'test'],
        ['webhooks', 'add', 'https://example.com/hooks', '--env', 'test'], ['settings', 'set', 'geofences.minConfidence', '3']]) {
        const res = await loc(...args, '--data-dir', bad)
        expect({args, code: res.code, stdout: res.stdout}).toEqual({args, code: 2, stdout: ''})
        expect(res.stderr).toBe(`error [invalid_parameter]: data-dir: cannot create ${bad}: ${file} is a file, not a directory; give a data directory this user can create and write (--data-dir, LOC_DATA_DIR)\n`)
      }
      expect(existsSync(configFile)).toBe(false)
      const itself = await loc('migrate', '--data-dir', file)
      expect(itself).toMatchObject({code: 2, stderr: `error [invalid_parameter]: data-dir: ${file} is a file, not a directory; give a data directory this user can create and write (--data-dir, LOC_DATA_DIR)\n`})
      // node 20's recursive mkdir never returns under /proc
      const proc = await loc('keys', 'create', '--type', 'secret', '--env', 'test', '--data-dir', '/proc/loc-data/x')
      expect(proc).toMatchObject({code: 2, stderr: 'error [invalid_parameter]: data-dir: cannot create /proc/loc-data: /proc takes no new directories; give a data directory this user can create and write (--data-dir, LOC_DATA_DIR)\n'})
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }, 60_000)

  // root writes anywhere: the commands run as nobody there
  const root = process.getuid?.() === 0
  it.skipIf(root && !existsSync('/usr/bin/setpriv'))('a data dir this user may not write is refused on one line, exit 2', async () => {
    const dir = tempDir('loc-read-only-')
    try {
      chmodSync(dir, 0o755)
      const readOnly = path.join(dir, 'read-only')
      mkdirSync(readOnly, {mode: 0o555})
      const via = root ? ['setpriv', '--reuid=65534', '--regid=65534', '--clear-groups'] : []
      // HOME: oclif reads its own files there, and root's is closed to nobody
      const as = (...args: string[]) => runLoc(args, {HOME: dir}, via)
      const inside = path.join(readOnly, 'data')
      for (const [data, says] of [[inside, `cannot create ${inside}: ${readOnly} is not writable by this user`], [readOnly, `${readOnly} is not writable by this user`]]) {
        const res = await as('keys', 'create', '--type', 'secret', '--env', 'test', '--data-dir', data)
        expect({data, code: res.code, stdout: res.stdout}).toEqual({data, code: 2, stdout: ''})
        expect(res.stderr).toBe(`error [invalid_parameter]: data-dir: ${says}; give a data directory this user can create and write (--data-dir, LOC_DATA_DIR)\n`)
      }
      expect(readdirSync(readOnly)).toEqual([])
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('a write that finds the store locked past the busy timeout prints the catalogue\'s refusal and writes nothing', async () => {
    const before = (await loc('keys', 'list')).stdout
    // another process's write (an import, a server's batch) holding the lock throughout
    const holder = new Database(path.join(dataDir, 'loc.db'))
    holder.exec('BEGIN IMMEDIATE')
    try {
      const locked = await loc('keys', 'create', '--type', 'secret', '--env', 'live')
      expect(locked.code).toBe(1)
      expect(locked.stdout).toBe('')
      expect(locked.stderr).toContain('error [unavailable]: Service temporarily unavailable: the store is locked by another writer')
      expect(locked.stderr).not.toContain('SqliteError')
    } finally {
      holder.exec('ROLLBACK')
      holder.close()
    }
    expect((await loc('keys', 'list')).stdout).toBe(before)
  })

  it('serve --demo (the quick start) imports the bundled extract, prints four working keys, and status lists the region', async () => {
    const dir = tempDir('loc-demo-')
    const server = await spawnServe(['--demo'], {LOC_DATA_DIR: dir})
    try {
      const out = server.output()
      expect(out).toMatch(/Imported the bundled extract .*monaco\.osm\.pbf as region "monaco"/)
      const keys = [...out.matchAll(/prj_(test|live)_(pk|sk)_[0-9a-f]{40}/g)].map((m) => m[0])
      expect(keys).toHaveLength(4)
      for (const key of keys) expect((await fetch(`${server.url}/v1/config`, {headers: {authorization: key}})).status).toBe(200)
      const status = await runLoc(['status'], {LOC_DATA_DIR: dir})
      expect(status.stdout).toMatch(/monaco\s+monaco\.osm\.pbf\s+imported \S+ {2}862 places {2}420 addresses {2}6,253 road edges\n/)
    } finally {
      await server.stop()
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('serve --demo --workers 2 on a fresh data dir: migrations and the first-start setup run once, before the workers; none crashes', async () => {
    const dir = tempDir('loc-demo-workers-')
    const server = await spawnServe(['--demo', '--workers', '2'], {LOC_DATA_DIR: dir})
    let code: number | null
    try {
      const keys = [...server.output().matchAll(/prj_test_pk_[0-9a-f]{40}/g)].map((m) => m[0])
      expect(keys).toHaveLength(1)
      // closed connections, so the primary hands them to both workers
      for (let i = 0; i < 4; i++) {
        expect((await fetch(`${server.url}/v1/config`, {headers: {authorization: keys[0], connection: 'close'}})).status).toBe(200)
      }
    } finally {
      code = await server.stop()
    }
    try {
      const out = server.output()
      expect(out).not.toMatch(/exited|Error/)
      expect(out.match(/Demo keys/g)).toHaveLength(1)
      expect(out).toContain(`Demo keys (kept in ${path.join(dir, 'demo-keys.json')}):`)
      expect(out.match(/Imported the bundled extract/g)).toHaveLength(1)
      expect(out).toContain('(2 workers,')
      expect(out).toContain('loc stopped')
      expect(code).toBe(0)
      const store = new Database(path.join(dir, 'loc.db'), {readonly: true})
      try {
        expect(store.prepare('SELECT count(*) FROM api_keys').pluck().get()).toBe(4)
      } finally {
        store.close()
      }
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }, 60_000)

  it('serve on a taken port says so and exits 2, with one process or with workers (which are not forked again and again)', async () => {
    const taken = createServer()
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve))
    const port = String((taken.address() as AddressInfo).port)
    const dir = tempDir('loc-port-')
    try {
      for (const workers of [[], ['--workers', '2']]) {
        const res = await loc('serve', '--port', port, '--data-dir', dir, ...workers)
        expect(res.code, workers.join(' ')).toBe(2)
        expect(res.stderr).toContain(`error [invalid_parameter]: port: ${port} on 127.0.0.1 is in use (another loc serve?): choose another with --port or LOC_PORT`)
        if (workers.length) expect(res.stderr).toMatch(/2 workers failed to start, stopping/)
      }
    } finally {
      taken.close()
      rmSync(dir, {recursive: true, force: true})
    }
  }, 60_000)

  it('serve logs one JSON line per request, never a key', async () => {
    const dir = tempDir('loc-logs-')
    try {
      const secret = (await loc('keys', 'create', '--type', 'secret', '--env', 'test', '--data-dir', dir)).stdout.trim()
      const wrong = `prj_live_sk_${'e'.repeat(40)}`
      const server = await spawnServe([], {LOC_DATA_DIR: dir, LOC_LOG_LEVEL: 'info'})
      try {
        expect((await fetch(`${server.url}/v1/settings?publishableKey=${secret}`, {headers: {authorization: secret, 'x-request-id': 'log-check-1'}})).status).toBe(200)
        expect((await fetch(`${server.url}/v1/settings`, {headers: {authorization: wrong, 'x-request-id': 'log-check-2'}})).status).toBe(401)
        await new Promise((r) => setTimeout(r, 200))
      } finally {
        await server.stop()
      }
      const lines = server.output().split('\n').filter((l) => l.startsWith('{')).map((l) => JSON.parse(l))
      expect(lines.find((l) => l.requestId === 'log-check-1')).toMatchObject({method: 'GET', path: '/v1/settings', status: 200, msg: 'request'})
      expect(lines.find((l) => l.requestId === 'log-check-2')).toMatchObject({status: 401})
      expect(server.output()).not.toContain(secret)
      expect(server.output()).not.toContain(wrong)
      expect(server.output()).not.toContain(secret.slice(-40))
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('init --yes writes the config file, creates the database and prints four keys; again, it creates none', async () => {
    const dir = tempDir('loc-init-')
    const configFile = path.join(dir, 'local.json')
    try {
      const {stdout, code} = await loc('init', '--yes', '--config', configFile, '--data-dir', path.join(dir, 'store'), '--port', '9123')
      expect(code).toBe(0)
      expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({port: 9123})
      expect(existsSync(path.join(dir, 'store', 'loc.db'))).toBe(true)
      for (const prefix of ['prj_test_pk_', 'prj_test_sk_', 'prj_live_pk_', 'prj_live_sk_']) expect(stdout).toMatch(new RegExp(`${prefix}[0-9a-f]{40}`))

      // again on the initialised store: the four keys stay the only ones
      const again = await loc('init', '--yes', '--config', configFile, '--data-dir', path.join(dir, 'store'))
      expect(again.code).toBe(0)
      expect(again.stdout).toContain('API keys: the store already has 4 active keys (loc keys list); none created (loc keys create makes more)')
      expect(again.stdout).not.toMatch(/prj_(test|live)_/)
      const keys = (await loc('keys', 'list', '--data-dir', path.join(dir, 'store'))).stdout.trim().split('\n')
      expect(keys.filter((line) => line.includes(' active '))).toHaveLength(4)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('import summaries print counts with thousands separators, as import osm does', async () => {
    const dir = tempDir('loc-counts-')
    try {
      const csv = path.join(dir, 'many.csv')
      const rows = Array.from({length: 1000}, (_, i) => `Store ${i},circle,store,s${i},"[7.42,43.73]",50`)
      writeFileSync(csv, ['description,type,tag,externalId,coordinates,radius', ...rows].join('\n') + '\n')
      const res = await loc('geofences', 'import', csv, '--env', 'test', '--dry-run')
      expect(res.stdout).toBe('dry run (test), nothing written: 1,000 created, 0 updated, 0 unchanged, 0 failed of 1,000 rows\n')
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  // a terminal of its own: `script` (util-linux) gives the process a pseudo-terminal
  it.skipIf(!existsSync('/usr/bin/script'))('progress bars on a terminal: every frame filled in, import osm ending at 100 %', async () => {
    const dir = tempDir('loc-progress-')
    const inTerminal = (command: string) => new Promise<string[]>((resolve, reject) => {
      const child = spawn('script', ['-qec', command, '/dev/null'], {env: {...process.env, LOC_DATA_DIR: dir, LOC_LOG_LEVEL: 'silent'}})
      let out = ''
      child.stdout.on('data', (chunk: Buffer) => (out += chunk))
      child.on('error', reject)
      // each frame of the bar (redrawn from column 1), without its colours and cursor moves
      child.on('exit', () => resolve(out.replaceAll('\x1b[1G', '\n').replace(/\x1b(\[[0-9;?]*[a-zA-Z]|[78])/g, '').split(/[\r\n]+/).filter(Boolean)))
    })
    try {
      const osm = await inTerminal(`node ${BIN} import osm data/monaco.osm.pbf`)
      const frames = osm.filter((line) => line.includes('% | '))
      expect(frames.length).toBeGreaterThan(2)
      for (const frame of frames) {
        expect(frame).not.toContain('{')
        expect(frame).not.toMatch(/\d\.\d{4,}/) // a stage's fraction as a raw number
      }
      expect(frames.at(-1)).toMatch(/ 100% \| 0\.7\/0\.7 MB \| 47,887 objects \| done$/)
      expect(osm).toContainEqual(expect.stringMatching(/^imported region "monaco"/))

      const csv = (await inTerminal(`node ${BIN} geofences import docs/examples/geofences.csv --env test --dry-run`)).filter((line) => line.includes('% | '))
      for (const frame of csv) expect(frame).not.toContain('{')
      expect(csv.at(-1)).toMatch(/ 100% \| 4 geofences rows$/)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  }, 60_000)

  // inquirer needs a terminal: `script` (util-linux) gives the process a pseudo-terminal
  it.skipIf(!existsSync('/usr/bin/script'))('init asks for the data directory, port and keys at a terminal', async () => {
    const dir = tempDir('loc-init-tty-')
    const configFile = path.join(dir, 'new', 'loc.json')
    const store = path.join(dir, 'store')
    try {
      const {LOC_DATA_DIR: _, ...env} = process.env
      const child = spawn('script', ['-qec', `node ${BIN} init --config ${configFile}`, '/dev/null'], {env: {...env, LOC_LOG_LEVEL: 'silent'}})
      let out = ''
      const waitFor = (text: string) => new Promise<void>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error(`no "${text}" in: ${out}`)), 15_000)
        const check = () => {
          if (!out.includes(text)) return
          clearTimeout(timer)
          child.stdout.off('data', check)
          resolve()
        }
        child.stdout.on('data', check)
        check()
      })
      child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString().replace(/\x1b\[[0-9;?]*[a-zA-Z]/g, '')))
      const exited = new Promise<number | null>((resolve) => child.on('exit', resolve))
      await waitFor('Data directory')
      child.stdin.write(`${store}\r`)
      await waitFor('Port')
      child.stdin.write('9124\r')
      await waitFor('Create the four API keys now?')
      child.stdin.write('n\r')
      await waitFor('next: loc serve')
      expect(await exited).toBe(0)
      expect(JSON.parse(readFileSync(configFile, 'utf8'))).toMatchObject({dataDir: store, port: 9124})
      expect(existsSync(path.join(store, 'loc.db'))).toBe(true)
      expect(out).not.toMatch(/prj_(test|live)_/)
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
