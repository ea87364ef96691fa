import {request} from 'node:http'
import {connect} from 'node:net'
import {gzipSync} from 'node:zlib'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import type {Api, RouteOptions} from '../../src/api/router.js'
import {routeGroups} from '../../src/api/routes/index.js'
import {startTestServer, type TestServer} from '../helpers.js'

/**
 * Malformed requests from a seeded generator against every registered `/v1` route (enumerated
 * from src/api/routes, so a new route is fuzzed without touching this file). What must hold for
 * every case: no 5xx; a JSON body whose `meta.code` is the status; on a 400 a `meta.param` and a
 * message reading `<param>: ...`; the database exactly as it was after a refusal; cases built to be
 * invalid (bad dates, non-decimal or non-finite numbers, broken UTF-8, prototype keys, strings over
 * the documented lengths, deep nesting) refused; and nothing accepted stores broken UTF-8 or a
 * string past the limits. `FUZZ_CASES=20000 FUZZ_SEED=7 npx vitest run test/api/fuzz.test.ts` for a
 * long run; a failure prints its seed and case number.
 */
const CASES = Number(process.env.FUZZ_CASES ?? 500)
const SEED = Number(process.env.FUZZ_SEED ?? 1)

interface RouteInfo {
  method: string
  path: string
  options: RouteOptions
}

function routes(server: TestServer): RouteInfo[] {
  const found: RouteInfo[] = []
  const collector: Api = {ctx: server.system, route: (method, path, options) => found.push({method, path, options})}
  for (const register of routeGroups) register(collector)
  return found
}

/** mulberry32: small, seeded, good enough to pick cases. */
function rng(seed: number) {
  let a = seed >>> 0
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
  return {next, int: (n: number) => Math.floor(next() * n), pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]}
}
type Rng = ReturnType<typeof rng>

/** A value and whether any server must refuse it wherever it is put. */
interface Bad {
  label: string
  value: unknown
  refuse: boolean
}

/** Nesting deeper than JSON.stringify can recurse through in a worker: written as text. */
class Deep {
  constructor(readonly depth: number, readonly kind: 'array' | 'object') {}
  json(): string {
    return this.kind === 'array' ? `${'['.repeat(this.depth)}[7.4,43.7]${']'.repeat(this.depth)}` : `${'{"a":'.repeat(this.depth)}"x"${'}'.repeat(this.depth)}`
  }
  formKey(key: string): string {
    return key + (this.kind === 'array' ? '[0]' : '[a]').repeat(this.depth)
  }
}
const nested = (depth: number) => new Deep(depth, 'array')
const nestedObject = (depth: number) => new Deep(depth, 'object')

/** JSON.stringify with a Deep value written in place. */
function stringify(value: unknown): string {
  let deep: Deep | undefined
  const text = JSON.stringify(value, (_k, v) => (v instanceof Deep ? ((deep = v), '@@DEEP@@') : v))
  return deep ? text.replace('"@@DEEP@@"', deep.json()) : text
}

const BAD_DATES = ['1', '0', 'x 2024', '2024-02-31', '2024-13-01T00:00:00Z', 'Tue, 01 Oct 2024', '2024-02-30T10:00:00.000Z', '99999-01-01']
const FIELDS = [
  'description', 'tag', 'externalId', 'type', 'coordinates', 'radius', 'metadata', 'userId', 'userIds', 'deviceId', 'installId',
  'enabled', 'disableAfter', 'deleteAfter', 'limit', 'createdBefore', 'createdAfter', 'updatedBefore', 'updatedAfter', 'uuid',
  'major', 'minor', 'uid', 'instance', 'name', 'revenue', 'createdAt', 'status', 'mode', 'scheduledArrivalAt', 'verification',
  'operatingHours', 'ip', 'destinationGeofenceTag', 'approachingThreshold', 'project.disabled', 'types', 'sortBy',
]

/** The date fields each body reads: only there must a bad date be refused (unknown fields are ignored, compat). */
function dateFieldsOf(path: string): string[] {
  if (path.startsWith('/geofences')) return ['disableAfter', 'deleteAfter']
  if (path === '/events') return ['createdAt']
  if (path.startsWith('/trips')) return ['scheduledArrivalAt']
  return []
}

function badValue(r: Rng, field: string, path: string): Bad {
  const kinds: Array<() => Bad> = [
    () => ({label: 'deep array', value: nested(3000 + r.int(60_000)), refuse: true}),
    () => ({label: 'deep object', value: nestedObject(200 + r.int(300)), refuse: true}),
    () => ({label: 'huge string', value: 'x'.repeat(300_000 + r.int(600_000)), refuse: true}),
    () => ({label: 'long string', value: 'é'.repeat(70_000), refuse: true}),
    // under the input limit, over every field's: storedTextProblems finds a field stored without one
    () => ({label: 'medium string', value: 'y'.repeat(20_000), refuse: false}),
    () => ({label: 'lone surrogate', value: r.pick(['\ud800x', 'a\udfff', '\udc00\ud800']), refuse: true}),
    () => ({label: 'bad date', value: r.pick(BAD_DATES), refuse: dateFieldsOf(path).includes(field)}),
    () => ({label: 'hex number', value: r.pick(['0x10', '0b11', '0o7', ' 12 ', '1_000']), refuse: false}),
    () => ({label: 'non-finite', value: r.pick(['1e309', '-1e309', 'Infinity', 'NaN']), refuse: false}),
    () => ({label: 'proto key', value: {['__proto__']: r.pick(['x', 1, {a: 1}]), ok: 'y'}, refuse: true}),
    () => ({label: 'constructor key', value: {constructor: {prototype: 'x'}}, refuse: true}),
    () => ({label: 'type', value: r.pick([null, true, false, 0, -1, 1.5, [], {}, [1, 'a'], {a: [1]}, '', ' ', '\u0000', '💥', 'ǅ̈́'.repeat(10)]), refuse: false}),
    () => ({label: 'big number', value: r.pick([1e308, -1e308, 2 ** 64, Number.MAX_SAFE_INTEGER + 2, 1e-320]), refuse: false}),
  ]
  return r.pick(kinds)()
}

/** Valid bodies to mutate one field of, so mutations reach the checks behind the required fields. */
function baseBody(path: string): Record<string, unknown> {
  if (path.startsWith('/geofences')) return {description: 'd', type: 'circle', coordinates: [7.42, 43.73], radius: 100, tag: 'fz', externalId: 'e1', metadata: {a: 1}}
  if (path.startsWith('/beacons')) return {description: 'b', tag: 'fz', externalId: 'b1', type: 'ibeacon', uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '1', minor: '2', coordinates: [7.42, 43.73]}
  if (path === '/trips') return {externalId: 't1', userId: 'u1', mode: 'car', metadata: {a: 'b'}}
  if (path.startsWith('/trips')) return {status: 'started', metadata: {a: 'b'}}
  if (path === '/events') return {name: 'purchase', userId: 'u1', metadata: {a: 1}}
  if (path.endsWith('/verification')) return {verification: 'accept'}
  if (path === '/settings') return {'project.disabled': false}
  if (path === '/users/refresh') return {userIds: ['u1']}
  return {}
}

interface Wire {
  method: string
  path: string
  headers: Record<string, string>
  body?: Buffer
  /** Why a server must refuse it, when it must. */
  mustRefuse?: string
}

/** `a[b][0]=c` pairs, iteratively (the fuzz nests deeper than a stack allows). */
function formEncode(value: unknown, prefix = ''): string[] {
  const out: string[] = []
  const stack: Array<[string, unknown]> = [[prefix, value]]
  while (stack.length) {
    const [key, v] = stack.pop()!
    if (v instanceof Deep) out.push(`${encodeURIComponent(v.formKey(key))}=x`)
    else if (v !== null && typeof v === 'object') {
      for (const [k, inner] of Object.entries(v).reverse()) stack.push([key ? `${key}[${k}]` : k, inner])
    } else {
      out.push(`${encodeURIComponent(key)}=${encodeURIComponent(String(v))}`)
    }
  }
  return out
}

function fillPath(path: string, ids: Record<string, string>, r: Rng, fuzz: boolean): string {
  return path.replace(/:(\w+)/g, (_m, name: string) => {
    if (!fuzz) return encodeURIComponent(ids[name] ?? 'x')
    return r.pick([encodeURIComponent(ids[name] ?? 'x'), '%FF%FE', '%ED%A0%80', 'x'.repeat(5000), '..%2F..', '%00', encodeURIComponent('💥')])
  })
}

function makeCase(r: Rng, route: RouteInfo, keys: Record<'S' | 'P', string>, ids: Record<string, string>): Wire {
  const method = route.method.toUpperCase()
  const headers: Record<string, string> = {authorization: keys[route.options.auth]}
  // half the time a field the route's body has (mutations reach its checks), else any known or odd name
  const known = Object.keys(baseBody(route.path))
  const roll = r.next()
  const field = roll < 0.5 && known.length ? r.pick(known) : roll < 0.85 ? r.pick(FIELDS) : r.pick(['__proto__', 'constructor', 'a'.repeat(300), 'm[x]'])
  const bad = badValue(r, field, route.path)
  const mustRefuse = (why: string, yes: boolean) => (yes ? `${why} in ${field}` : undefined)
  const hasBody = method !== 'GET' && method !== 'DELETE'
  const where = hasBody ? r.pick(['json', 'json', 'form', 'jsonString', 'raw', 'query'] as const) : r.pick(['query', 'query', 'raw'] as const)
  const path = fillPath(route.path, ids, r, r.next() < 0.15)

  if (where === 'raw') {
    const raws: Array<() => Wire> = [
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/json'}, body: Buffer.from([0x7b, 0x22, 0x64, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]), mustRefuse: 'invalid UTF-8 bytes'}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/x-www-form-urlencoded'}, body: Buffer.from('description=%FF%FE&type=circle'), mustRefuse: hasBody ? 'invalid UTF-8 in a form' : undefined}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/json', 'content-encoding': 'gzip'}, body: Buffer.from('not gzip at all'), mustRefuse: 'bad gzip'}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/json', 'content-encoding': 'gzip'}, body: gzipSync(JSON.stringify({description: 'x'.repeat(5_000_000)})), mustRefuse: 'gzip bomb'}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/x-www-form-urlencoded'}, body: Buffer.from(`a${'[a]'.repeat(40)}=1`), mustRefuse: hasBody ? 'deep form' : undefined}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/x-www-form-urlencoded'}, body: Buffer.from(Array.from({length: 1500}, (_, i) => `k${i}=1`).join('&')), mustRefuse: hasBody ? 'too many form fields' : undefined}),
      () => ({method, path: `/v1${path}?limit=1&limit=2&${'x=1&'.repeat(3)}deviceId=a&deviceId=b`, headers}),
      () => ({method, path: `/v1${path}?q${'[a]'.repeat(30)}=1`, headers, mustRefuse: 'deep query'}),
      () => ({method, path: `/v1${path}?limit=%ED%A0%80`, headers, mustRefuse: 'invalid UTF-8 in the query'}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/json; charset=latin1'}, body: Buffer.from('{}')}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'text/plain'}, body: Buffer.from('hello')}),
      () => ({method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/json'}, body: Buffer.from(stringify(baseBody(route.path)).replace(/}$/, `${Object.keys(baseBody(route.path)).length ? ',' : ''}"${r.pick(['major', 'radius', 'revenue'])}":1e309}`)), mustRefuse: hasBody ? 'a non-finite JSON number (1e309)' : undefined}),
    ]
    const wire = r.pick(raws)()
    // GET and DELETE bodies are not read: only their query must be refused
    if (!hasBody && wire.body) wire.mustRefuse = undefined
    return wire
  }

  if (where === 'query') {
    const value = bad.value
    // a lone surrogate cannot be percent-encoded: send its CESU-8 bytes as a careless client would
    const query = bad.label === 'lone surrogate' ? `${field}=%ED%A0%80x`
      : typeof value === 'object' && value !== null ? formEncode(value, field).join('&')
      : `${encodeURIComponent(field)}=${encodeURIComponent(String(value))}`
    const isList = method === 'GET' && !route.path.includes(':') && route.path !== '/config' && route.path !== '/settings'
    const read = isList && field === 'limit' && ['hex number', 'non-finite'].includes(bad.label)
    return {method, path: `/v1${path}?${query}`, headers, mustRefuse: mustRefuse(bad.label, read || bad.label === 'lone surrogate')}
  }

  const body = {...baseBody(route.path)}
  if (field === '__proto__') Object.defineProperty(body, '__proto__', {value: bad.value, enumerable: true, writable: true, configurable: true})
  else body[field] = bad.value
  const protoKey = field === '__proto__' || field === 'constructor'
  if (where === 'form') {
    const text = bad.label === 'lone surrogate' ? `${formEncode({...body, [field]: 'x'}).join('&')}&${field}=%ED%A0%80` : formEncode(body).join('&')
    return {method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/x-www-form-urlencoded'}, body: Buffer.from(text), mustRefuse: formMustRefuse(bad, field, text)}
  }
  // the JSON-string form (form bodies and SDKs send metadata and coordinates so): its text is an ordinary string
  const asString = where === 'jsonString' && typeof bad.value === 'object' && bad.value !== null
  const json = stringify(asString ? {...body, [field]: stringify(bad.value)} : body)
  return {
    method, path: `/v1${path}`, headers: {...headers, 'content-type': 'application/json'}, body: Buffer.from(json),
    mustRefuse: asString ? undefined : mustRefuse(bad.label, bad.refuse || protoKey),
  }
}

function formMustRefuse(bad: Bad, field: string, text: string): string | undefined {
  if (Buffer.byteLength(text) > 1_048_576) return undefined // a 413 is as good
  if (['deep array', 'deep object', 'huge string', 'long string', 'lone surrogate', 'proto key', 'constructor key'].includes(bad.label)) return `${bad.label} in ${field} (form)`
  if (bad.label === 'bad date' && bad.refuse) return `bad date in ${field} (form)`
  if ((field === '__proto__' || field === 'constructor') && text.includes(field)) return `${field} key (form)`
  return undefined
}

interface Answer {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
}

function send(url: URL, wire: Wire): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request({host: url.hostname, port: url.port, method: wire.method, path: wire.path, headers: {...wire.headers, ...(wire.body ? {'content-length': String(wire.body.length)} : {})}}, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode ?? 0, headers: res.headers, text: Buffer.concat(chunks).toString('utf8')}))
      res.on('error', reject)
    })
    req.on('error', reject)
    req.end(wire.body)
  })
}

/** Every table's rows, as text (the `usage` counters move with every counted request by design); rows ordered by their first columns (some tables have no rowid). */
function snapshot(server: TestServer): string {
  const db = server.store.sqlite
  const tables = db.prepare(`select name from sqlite_master where type = 'table' and name not in ('usage', 'sqlite_sequence') order by name`).pluck().all() as string[]
  return tables.map((t) => `${t}:${JSON.stringify(db.prepare(`select * from "${t}" order by 1, 2`).raw().all())}`).join('\n')
}

const STRICT_UTF8 = new TextDecoder('utf-8', {fatal: true})
/** Columns that legitimately hold long text (computed geometry). */
const LONG_COLUMNS = new Set(['geometry'])
const TEXT_MAX_BYTES = 16 * 1024

/** Every stored text is well-formed UTF-8 and none but computed columns is over 16 KiB. */
function storedTextProblems(server: TestServer): string[] {
  const db = server.store.sqlite
  const problems: string[] = []
  const tables = db.prepare(`select name from sqlite_master where type = 'table' and name not like 'sqlite_%'`).pluck().all() as string[]
  for (const table of tables) {
    const columns = (db.prepare(`pragma table_info("${table}")`).all() as Array<{name: string}>).map((c) => c.name)
    const rows = db.prepare(`select ${columns.map((c) => `case when typeof("${c}") = 'text' then cast("${c}" as blob) end`).join(', ')} from "${table}"`).raw().all() as Array<Array<Buffer | null>>
    for (const row of rows) {
      row.forEach((cell, i) => {
        if (!cell) return
        try {
          const text = STRICT_UTF8.decode(cell)
          if (/[\ud800-\udfff]/.test(text.replace(/[\ud800-\udbff][\udc00-\udfff]/g, ''))) problems.push(`${table}.${columns[i]}: lone surrogate`)
        } catch {
          problems.push(`${table}.${columns[i]}: not UTF-8`)
        }
        if (cell.length > TEXT_MAX_BYTES && !LONG_COLUMNS.has(columns[i])) problems.push(`${table}.${columns[i]}: ${cell.length} bytes`)
        if (cell.toString() === 'Infinity' || cell.toString() === '-Infinity') problems.push(`${table}.${columns[i]}: ${cell.toString()}`)
      })
    }
  }
  return problems
}

/** The checks every answer must pass; returns what failed, empty when none. */
function answerProblems(answer: Answer, wire: Wire): string[] {
  const problems: string[] = []
  if (answer.status >= 500) problems.push(`status ${answer.status}`)
  // 204 No Content (the autocomplete click) has no body by definition
  if (answer.status === 204) return answer.text === '' ? problems : [...problems, `a body on 204: ${answer.text.slice(0, 80)}`]
  let body: any
  try {
    body = JSON.parse(answer.text)
  } catch {
    problems.push(`not JSON: ${answer.text.slice(0, 80)}`)
    return problems
  }
  if (body?.meta?.code !== answer.status) problems.push(`meta.code ${body?.meta?.code} for status ${answer.status}`)
  if (!answer.headers['x-request-id']) problems.push('no X-Request-Id')
  if (answer.status === 400) {
    const {param, message} = body.meta
    if (typeof param !== 'string') problems.push(`400 without meta.param: ${message}`)
    else if (!String(message).startsWith(`${param}: `)) problems.push(`message not "<param>: ...": ${message}`)
    if (/Invalid input|incorrect header check|exceeded the depth|too many parameters/i.test(message)) problems.push(`raw library message: ${message}`)
  }
  if (answer.status === 413 && (wire.body?.length ?? 0) <= 1_048_576 && !/gzip|inflat|decompress/i.test(answer.headers['content-encoding'] ? '' : body.meta.message)) {
    problems.push(`413 for a ${wire.body?.length ?? 0}-byte body: ${body.meta.message}`)
  }
  if (wire.mustRefuse && answer.status < 400) problems.push(`accepted (${answer.status}) but must refuse: ${wire.mustRefuse}`)
  return problems
}

describe('fuzz: malformed requests against every /v1 route', () => {
  let server: TestServer
  let all: RouteInfo[]
  const ids: Record<string, string> = {}

  beforeAll(async () => {
    server = await startTestServer()
    all = routes(server)
    const sk = server.keys.testSk
    const geofence = await server.call('POST', '/v1/geofences', {key: sk, body: {description: 'seed', type: 'circle', coordinates: [7.42, 43.73], radius: 100, tag: 'seed', externalId: 'g1'}})
    const beacon = await server.call('POST', '/v1/beacons', {key: sk, body: {description: 'seed', tag: 'seed', externalId: 'b1', type: 'ibeacon', uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '1', minor: '2', coordinates: [7.42, 43.73]}})
    const trip = await server.call('POST', '/v1/trips', {key: sk, body: {externalId: 'seed-trip', userId: 'seed-user'}})
    ids.id = geofence.body.geofence?._id ?? 'x'
    ids.tag = 'seed'
    ids.externalId = 'g1'
    Object.assign(ids, {beacon: beacon.body.beacon?._id, trip: trip.body.trip?._id})
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('enumerates the routes from the router', () => {
    expect(all.length).toBeGreaterThan(20)
    expect(all.map((r) => `${r.method} ${r.path}`)).toContain('post /geofences')
  })

  it(`answers ${CASES} malformed requests (seed ${SEED}) in the spec's shape, refusing without a change`, async () => {
    const r = rng(SEED)
    const url = new URL(server.url)
    const keys = {S: server.keys.testSk, P: server.keys.testSk}
    const failures: string[] = []
    const kinds = new Set<string>()
    // first every field of every body nested deep, as JSON and as a JSON string (recursion is the
    // failure that random picks reach least often), then random cases
    const probes = all.filter((route) => !['get', 'delete'].includes(route.method)).flatMap((route) => Object.keys(baseBody(route.path)).flatMap((field) => {
      const path = `/v1${fillPath(route.path, ids, r, false)}`
      const headers = {authorization: keys[route.options.auth], 'content-type': 'application/json'}
      const deep = nested(3700)
      return [
        {method: route.method.toUpperCase(), path, headers, body: Buffer.from(stringify({...baseBody(route.path), [field]: deep})), mustRefuse: `deep array in ${field}`},
        {method: route.method.toUpperCase(), path, headers, body: Buffer.from(stringify({...baseBody(route.path), [field]: deep.json()}))},
      ]
    }))
    for (let n = 0; n < probes.length + CASES && failures.length < 40; n++) {
      const route = all[n % all.length]
      const wire = n < probes.length ? probes[n] : makeCase(r, route, keys, ids)
      const before = snapshot(server)
      const answer = await send(url, wire)
      const problems = answerProblems(answer, wire)
      if (answer.status >= 400 && snapshot(server) !== before) problems.push('a refused request changed the database')
      if (answer.status < 400 && wire.method !== 'GET') problems.push(...storedTextProblems(server))
      // one line per kind of problem, so a run shows every defect it found
      const kind = problems.map((p) => p.replace(/ in \S+.*$/, '').replace(/\d+/g, '#').slice(0, 50)).join('; ')
      if (problems.length && !kinds.has(kind) && kinds.add(kind)) failures.push(`seed ${SEED} case ${n} ${wire.method} ${wire.path.slice(0, 100)} ${wire.body?.subarray(0, 100).toString() ?? ''} → ${answer.status} ${answer.text.slice(0, 160)}: ${problems.join('; ')}`)
    }
    expect(failures).toEqual([])
  }, 120_000)
})

/** A raw request on its own socket: what node's parser refuses never reaches a route. */
function rawExchange(url: URL, text: string | Buffer, waitMs = 3000): Promise<string> {
  return new Promise((resolve) => {
    const socket = connect(Number(url.port), url.hostname)
    let got = ''
    const done = () => resolve(got)
    socket.setTimeout(waitMs, () => socket.destroy())
    socket.on('data', (c) => (got += c.toString('latin1')))
    socket.on('close', done)
    socket.on('error', done)
    if (text) socket.write(text)
  })
}

function parseRaw(text: string): {status: number; headers: Record<string, string>; body: any} {
  const [head, ...rest] = text.split('\r\n\r\n')
  const lines = head.split('\r\n')
  const headers = Object.fromEntries(lines.slice(1).map((l) => [l.slice(0, l.indexOf(':')).toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]))
  let body: any
  try {
    body = JSON.parse(rest.join('\r\n\r\n'))
  } catch {
    body = rest.join('')
  }
  return {status: Number(lines[0].split(' ')[1]), headers, body}
}

describe("fuzz: malformed HTTP that node's parser refuses", () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({server: {trustProxy: false, bodyLimitBytes: 1_048_576, shutdownTimeoutMs: 1000, maxConnections: 40, headersTimeoutMs: 400, requestTimeoutMs: 800, keepAliveTimeoutMs: 5000, maxHeaderBytes: 16_384}})
  })
  afterAll(async () => {
    await server?.stop()
  })

  const cases: Array<[string, string, number]> = [
    ['a URL over 16 KiB', `GET /v1/config?x=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: x\r\n\r\n`, 431],
    ['a bad Content-Length', 'POST /v1/geofences HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n', 400],
    ['Content-Length and Transfer-Encoding', 'POST /v1/geofences HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n', 400],
    ['a control character in a header', 'GET /v1/config HTTP/1.1\r\nHost: x\r\nX-A: a\u0001b\r\n\r\n', 400],
    ['a request line that is not HTTP', 'HELLO\r\n\r\n', 400],
    ['headers that never finish (408)', 'GET /v1/config HTTP/1.1\r\nHost: x\r\n', 408],
  ]
  for (const [name, text, status] of cases) {
    it(`answers ${name} with JSON ${status}, a request id and the security headers`, async () => {
      const answer = parseRaw(await rawExchange(new URL(server.url), text))
      expect(answer.status).toBe(status)
      expect(answer.body.meta).toMatchObject({code: status})
      if (status === 400) expect(answer.body.meta.param).toBe('request')
      expect(answer.headers['x-request-id']).toMatch(/^[\w-]{36}$/)
      expect(answer.headers['x-content-type-options']).toBe('nosniff')
    })
  }

  it('closes connections past server.maxConnections at once, times idle ones out, and serves again once they go', async () => {
    const url = new URL(server.url)
    const idle = Array.from({length: 40}, () => connect(Number(url.port), url.hostname).resume())
    await Promise.all(idle.map((s) => new Promise((resolve) => s.once('connect', resolve))))
    await new Promise((resolve) => setTimeout(resolve, 50))
    const refused = await rawExchange(url, 'GET /v1/config HTTP/1.1\r\nHost: x\r\n\r\n', 1000)
    expect(refused).toBe('')
    // idle sockets that never send a request are answered 408 and closed after headersTimeoutMs
    await Promise.all(idle.map((s) => new Promise((resolve) => s.once('close', resolve))))
    const served = await server.call('GET', '/v1/config', {key: server.keys.testPk})
    expect(served.status).toBe(200)
  }, 10_000)
})

describe('fuzz: the rate limit comes before the body', () => {
  let server: TestServer
  beforeAll(async () => {
    const one = Object.fromEntries(['track', 'geocode', 'ipGeocode', 'search', 'searchPlaces', 'validate', 'matrix', 'routing', 'data', 'staticMaps', 'config'].map((g) => [g, 1]))
    server = await startTestServer({rateLimits: one})
  })
  afterAll(async () => {
    await server?.stop()
  })

  it('answers 429 to an over-limit key on every body-taking route, whatever its body', async () => {
    const url = new URL(server.url)
    const r = rng(SEED)
    const bodies = [Buffer.from('{"description": '), Buffer.from([0xff, 0xfe]), Buffer.from(`a${'[a]'.repeat(40)}=1`)]
    // track counts the device its body names: test below
    for (const route of routes(server).filter((x) => !['get', 'delete'].includes(x.method) && x.path !== '/track')) {
      const wire = (body: Buffer): Wire => ({method: route.method.toUpperCase(), path: `/v1${fillPath(route.path, {}, r, false)}`, headers: {authorization: server.keys.testSk, 'content-type': body[0] === 0x61 ? 'application/x-www-form-urlencoded' : 'application/json'}, body})
      // within one wall-clock second: the first spends the limit, the second is over it
      while (Date.now() % 1000 > 700) await new Promise((resolve) => setTimeout(resolve, 50))
      await send(url, wire(Buffer.from('{}')))
      const answer = await send(url, wire(r.pick(bodies)))
      expect(answer.status, `${route.method} ${route.path}`).toBe(429)
      expect(JSON.parse(answer.text).meta).toMatchObject({code: 429, error: 'rate_limited'})
    }
  }, 30_000)

  it('answers 429 to an over-limit track device, whatever else its body holds or its header names', async () => {
    const url = new URL(server.url)
    const r = rng(SEED)
    const bodies = ['{"deviceId": "d2", "latitude": "x"}', '{"deviceId": "d2", "metadata": 7, "description": []}', 'deviceId=d2&latitude=91&accuracy=-1', 'deviceId=d2&a[b][c]=1']
    const wire = (body: string, header: string): Wire => ({method: 'POST', path: '/v1/track', headers: {authorization: server.keys.testSk, 'content-type': body[0] === '{' ? 'application/json' : 'application/x-www-form-urlencoded', 'x-radar-device-id': header}, body: Buffer.from(body)})
    while (Date.now() % 1000 > 700) await new Promise((resolve) => setTimeout(resolve, 50))
    await send(url, wire('{"deviceId": "d2"}', 'd2'))
    for (let i = 0; i < 4; i++) {
      const answer = await send(url, wire(r.pick(bodies), `spoof-${i}`))
      expect(answer.status).toBe(429)
      expect(JSON.parse(answer.text).meta).toMatchObject({code: 429, error: 'rate_limited'})
    }
  })
})
