import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {LIST_MAX_CHARS} from '../../src/api/paging.js'
import {startTestServer, type TestServer} from '../helpers.js'

describe('input and output limits (docs/api.md#limits)', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(async () => {
    await server?.stop()
  })
  const sk = () => server.keys.testSk

  it('bounds a list response in bytes; the cursor then reaches every row', async () => {
    // 24 geofences of ~500 KB stored geometry: 12 MB for one page of 100 without the bound
    const geometry = JSON.stringify({type: 'Polygon', coordinates: [Array.from({length: 25_000}, (_, i) => [7.4 + i / 1e6, 43.7])]})
    const insert = server.store.sqlite.prepare(`INSERT INTO geofences (id, live, tag, external_id, description, type, geometry, center_lng, center_lat, radius,
      enabled, min_lng, min_lat, max_lng, max_lat, created_at, updated_at) VALUES (?, 0, 'big', ?, 'd', 'polygon', ?, 7.4, 43.7, 100, 1, 7.4, 43.7, 7.5, 43.8, ?, ?)`)
    for (let i = 0; i < 24; i++) {
      const at = new Date(Date.UTC(2024, 0, 1, 0, 0, i)).toISOString()
      insert.run(`big${String(i).padStart(21, '0')}`, `e${i}`, geometry, at, at)
    }
    const seen: string[] = []
    let cursor = ''
    for (let page = 0; page < 10; page++) {
      const res = await server.call('GET', `/v1/geofences?limit=100${cursor}`, {key: sk()})
      expect(res.status).toBe(200)
      expect(JSON.stringify(res.body).length).toBeLessThan(LIST_MAX_CHARS + 600_000)
      seen.push(...res.body.geofences.map((g: any) => g.externalId))
      if (!res.body.meta.hasMore) break
      cursor = `&updatedBefore=${encodeURIComponent(res.body.geofences.at(-1).updatedAt)}`
    }
    expect(seen.length).toBe(24)
    expect(new Set(seen).size).toBe(24)
  })

  it('streams list pages: chunked, meta last; clients leaving mid-page leave the server answering others', async () => {
    // the 24 big geofences of the test above: ~12 MB a page without the bound
    const res = await fetch(`${server.url}/v1/geofences?limit=100`, {headers: {authorization: sk()}})
    expect(res.headers.get('transfer-encoding')).toBe('chunked')
    expect(res.headers.get('content-length')).toBeNull()
    const text = await res.text()
    expect(text.startsWith('{"geofences":[{')).toBe(true)
    expect(text.endsWith('],"meta":{"code":200,"hasMore":true}}')).toBe(true)
    for (let i = 0; i < 5; i++) {
      const controller = new AbortController()
      const leaving = await fetch(`${server.url}/v1/geofences?limit=100`, {headers: {authorization: sk()}, signal: controller.signal})
      await leaving.body!.getReader().read()
      controller.abort()
    }
    const after = await server.call('GET', '/v1/geofences?limit=1', {key: sk()})
    expect(after.status).toBe(200)
    expect(after.body.geofences).toHaveLength(1)
  })

  it('sends the security headers and no-store on API JSON', async () => {
    const res = await server.call('GET', '/v1/config', {key: server.keys.testPk})
    expect(Object.fromEntries(['x-content-type-options', 'content-security-policy', 'cache-control'].map((h) => [h, res.headers.get(h)]))).toEqual({
      'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; frame-ancestors 'none'", 'cache-control': 'no-store',
    })
    expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'")
  })

  it('refuses what the issue found, each with its param and a statement of what is valid', async () => {
    const base = {description: 'd', type: 'circle', coordinates: [7.42, 43.73], radius: 100}
    const cases: Array<[unknown, string, string]> = [
      [{...base, deleteAfter: '1'}, 'deleteAfter', 'deleteAfter: must be a date or an ISO 8601 date string (2024-05-01T12:00:00Z) naming a real date'],
      [{...base, deleteAfter: '2024-02-31'}, 'deleteAfter', 'deleteAfter: must be a date or an ISO 8601 date string (2024-05-01T12:00:00Z) naming a real date'],
      [{...base, description: 'x'.repeat(4097)}, 'description', 'description: must be at most 4096 characters'],
      [{...base, metadata: {a: 'x'.repeat(1025)}}, 'metadata.a', 'metadata.a: must be at most 1024 characters'],
      [{...base, description: '\ud800x'}, 'description', 'description: must be well-formed Unicode (no lone surrogates)'],
      [JSON.parse('{"description":"d","type":"circle","coordinates":[7.42,43.73],"radius":100,"metadata":{"__proto__":"x"}}'), 'metadata.__proto__', 'metadata.__proto__: "__proto__" is not accepted as a key'],
      [`{"description":"d","coordinates":${'['.repeat(3700)}${']'.repeat(3700)}}`, 'body', 'body: must be nested at most 32 levels deep'],
    ]
    for (const [body, param, message] of cases) {
      const res = await server.call('POST', '/v1/geofences', {key: sk(), body: typeof body === 'string' ? body : JSON.stringify(body)})
      expect(res.body.meta, message).toMatchObject({code: 400, param, message})
    }
    const hex = await server.call('GET', '/v1/geofences?limit=0x10', {key: sk()})
    expect(hex.body.meta).toMatchObject({code: 400, param: 'limit', message: 'limit: integer from 1 to 1000'})
    const ok = await server.call('POST', '/v1/geofences', {key: sk(), body: {...base, deleteAfter: '2030-02-28T10:00:00+02:00'}})
    expect(ok.body.geofence.deleteAfter).toBe('2030-02-28T08:00:00.000Z')
  })

  const form = {'content-type': 'application/x-www-form-urlencoded'}
  const get = (path: string, key = sk()) => server.call('GET', path, {key})

  it('refuses a parameter given more than once, or as a list, where it takes one value, naming it as given', async () => {
    const once = (param: string) => ({code: 400, error: 'invalid_parameter', param, message: `${param}: must be given once, as a single value (not repeated, not a list)`})
    const pk = server.keys.testPk
    const cases: Array<[Promise<{body: any}>, string]> = [
      [get('/v1/context?coordinates=43.7,7.4&coordinates=1,1', pk), 'coordinates'],
      [get('/v1/context?coordinates[]=43.7,7.4', pk), 'coordinates'],
      [get('/v1/search/beacons?near=43.7,7.4&near=1,1', pk), 'near'],
      [get('/v1/search/beacons?near=43.7,7.4&limit=5&limit=6', pk), 'limit'],
      [get('/v1/geofences?limit=5&limit=6'), 'limit'],
      [get('/v1/users?updatedBefore=2024-01-01&updatedBefore=2024-01-02'), 'updatedBefore'],
      [get('/v1/route/distance?origin=43.7,7.4&origin=43.8,7.4&destination=43.7,7.42&modes=car', pk), 'origin'],
      [get('/v1/route/distance?origin=43.7,7.4&destination=43.7,7.42&modes=car&units=metric&units=imperial', pk), 'units'],
      [server.call('POST', '/v1/track', {key: pk, headers: form, body: 'deviceId=d1&latitude=43.73&latitude=43.74&longitude=7.42'}), 'latitude'],
      [server.call('POST', '/v1/track', {key: pk, headers: form, body: 'deviceId=d1&deviceId=d2&latitude=43.73&longitude=7.42'}), 'deviceId'],
      [server.call('POST', '/v1/track', {key: pk, body: {deviceId: 'd1', latitude: [43.73, 43.74], longitude: 7.42}}), 'latitude'],
      [fetch(`${server.url}/maps/static?publishableKey=${pk}&width=200&width=300&height=200&center=43.7,7.4&zoom=12`).then(async (r) => ({body: await r.json()})), 'width'],
    ]
    for (const [answer, param] of cases) expect((await answer).body.meta, param).toMatchObject(once(param))
    // a list parameter still takes repeats
    expect((await get('/v1/events?types=user.entered_geofence&types=user.exited_geofence')).body.meta).toEqual({code: 200, hasMore: false})
  })

  it('reads numbers given as strings as decimal only, on every route alike', async () => {
    const pk = server.keys.testPk
    const refused: Array<[Promise<{status: number; body: any}>, string]> = [
      [get('/v1/context?coordinates=0x10,7', pk), 'coordinates'],
      [get('/v1/context?coordinates=43.7,1_0', pk), 'coordinates'],
      [get('/v1/search/beacons?near=43.7,0x7', pk), 'near'],
      [get('/v1/route/matrix?origins=0x10,7&destinations=43.7,7.4&mode=car', pk), 'origins'],
      [get('/v1/route/distance?origin=0b1,7.4&destination=43.7,7.42&modes=car', pk), 'origin'],
      [fetch(`${server.url}/maps/static?publishableKey=${pk}&width=200&height=200&bbox=0x10,7,44,8`).then(async (r) => ({status: r.status, body: await r.json()})), 'bbox'],
      [server.call('POST', '/v1/track', {key: pk, headers: form, body: 'deviceId=d1&latitude=0x10&longitude=7.42'}), 'latitude'],
    ]
    for (const [answer, param] of refused) {
      const {status, body} = await answer
      expect([status, body.meta.param], param).toEqual([400, param])
    }
    // what JSON numbers allow, strings allow
    expect((await get('/v1/context?coordinates=4.37e1,7.4', pk)).status).toBe(200)
  })
})
