import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {revokeKey} from '../../src/project/keys.js'
import {setSetting} from '../../src/project/settings.js'
import {startTestServer, type TestServer} from '../helpers.js'

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  await s.stop()
})

describe('health, metrics and unknown routes', () => {
  it('answers /health without a key', async () => {
    const r = await s.call('GET', '/health')
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({meta: {code: 200}, status: 'ok'})
  })

  it('answers unknown routes with a JSON 404 in the error shape', async () => {
    const r = await s.call('GET', '/v1/nope', {key: s.keys.testSk})
    expect(r.status).toBe(404)
    expect(r.body).toEqual({meta: {code: 404, error: 'route_not_found', message: 'route not found: GET /v1/nope'}})
    expect(r.headers.get('content-type')).toMatch(/application\/json/)
  })

  it('matches paths with a trailing slash, and answers HEAD like GET without a body', async () => {
    expect((await s.call('GET', '/v1/config/', {key: s.keys.testPk})).status).toBe(200)
    const head = await fetch(`${s.url}/v1/config`, {method: 'HEAD', headers: {authorization: s.keys.testPk}})
    expect(head.status).toBe(200)
    expect(head.headers.get('content-type')).toMatch(/application\/json/)
    expect(await head.text()).toBe('')
    expect((await fetch(`${s.url}/v1/config`, {method: 'HEAD'})).status).toBe(401)
  })

  it('puts an X-Request-Id on every response and keeps a sane incoming one', async () => {
    const a = await s.call('GET', '/v1/nope')
    expect(a.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/)
    const b = await s.call('GET', '/health', {headers: {'x-request-id': 'abc-123'}})
    expect(b.headers.get('x-request-id')).toBe('abc-123')
  })

  it('serves Prometheus metrics that count requests by route pattern', async () => {
    const before = await (await fetch(`${s.url}/metrics`)).text()
    const countOf = (text: string, labels: string) => Number(new RegExp(`loc_http_requests_total\\{${labels}\\} (\\d+)`).exec(text)?.[1] ?? 0)
    const configOk = 'method="GET",route="/v1/config",status="200"'
    const userMissing = 'method="GET",route="/v1/users/:id",status="404"'
    await s.call('GET', '/v1/config', {key: s.keys.testPk})
    await s.call('GET', '/v1/config/', {key: s.keys.testPk})
    await s.call('GET', '/v1/users/nobody-1', {key: s.keys.testSk})
    await s.call('GET', '/v1/users/nobody-2', {key: s.keys.testSk})
    const r = await fetch(`${s.url}/metrics`)
    const text = await r.text()
    expect(r.headers.get('content-type')).toMatch(/text\/plain/)
    expect(countOf(text, configOk) - countOf(before, configOk)).toBe(2)
    // ids never become labels: both misses count under the route pattern
    expect(countOf(text, userMissing) - countOf(before, userMissing)).toBe(2)
    expect(text).not.toContain('nobody')
    expect(text).toMatch(/loc_http_request_duration_seconds_bucket\{method="GET",route="\/v1\/config",le="\+Inf"\} \d+/)
    expect(text).toContain('process_cpu_seconds_total')
  })
})

describe('authentication', () => {
  it('refuses a request without a key with 401', async () => {
    const r = await s.call('GET', '/v1/config')
    expect(r.status).toBe(401)
    expect(r.body.meta).toMatchObject({code: 401, error: 'unauthorized'})
    expect(r.body.meta.message).toMatch(/API key/)
  })

  it('refuses unknown and malformed keys with 401', async () => {
    for (const key of ['prj_test_sk_' + '0'.repeat(40), 'Bearer ' + s.keys.testSk, 'nonsense']) {
      const r = await s.call('GET', '/v1/config', {key})
      expect(r.status, key).toBe(401)
    }
  })

  it('takes the whole header value as the key, P and S keys both on a P endpoint', async () => {
    for (const key of Object.values(s.keys)) {
      const r = await s.call('GET', '/v1/config', {key})
      expect(r.status).toBe(200)
      expect(r.body).toEqual({meta: {code: 200}})
    }
  })

  it('answers 403 to a publishable key on a secret endpoint', async () => {
    const r = await s.call('GET', '/v1/settings', {key: s.keys.testPk})
    expect(r.status).toBe(403)
    expect(r.body.meta).toMatchObject({code: 403, error: 'forbidden'})
    expect((await s.call('GET', '/v1/settings', {key: s.keys.testSk})).status).toBe(200)
  })

  it('refuses a revoked key with 401 from the next request on', async () => {
    const extra = await startTestServer()
    try {
      expect((await extra.call('GET', '/v1/settings', {key: extra.keys.liveSk})).status).toBe(200)
      await revokeKey(extra.store, extra.keys.liveSk.slice(0, 20))
      expect((await extra.call('GET', '/v1/settings', {key: extra.keys.liveSk})).status).toBe(401)
      expect((await extra.call('GET', '/v1/settings', {key: extra.keys.testSk})).status).toBe(200)
    } finally {
      await extra.stop()
    }
  })

  it('answers 402 while the project is disabled', async () => {
    const extra = await startTestServer()
    try {
      await setSetting(extra.store, true, 'project.disabled', true)
      const r = await extra.call('GET', '/v1/config', {key: extra.keys.livePk})
      expect(r.status).toBe(402)
      expect(r.body.meta).toMatchObject({code: 402, error: 'project_disabled'})
      expect((await extra.call('GET', '/v1/config', {key: extra.keys.testPk})).status).toBe(200)
    } finally {
      await extra.stop()
    }
  })

  it('answers 402 once the environment has used its monthly request quota, and counts only what it answered', async () => {
    const extra = await startTestServer()
    try {
      await setSetting(extra.store, false, 'project.monthlyRequestQuota', 3)
      const statuses = []
      for (let i = 0; i < 5; i++) statuses.push((await extra.call('GET', '/v1/config', {key: extra.keys.testPk})).status)
      expect(statuses).toEqual([200, 200, 200, 402, 402])
      const refused = await extra.call('GET', '/v1/config', {key: extra.keys.testSk})
      expect(refused.body.meta).toEqual({code: 402, error: 'quota_spent', message: expect.stringMatching(/usage/)})
      // live has no quota and its own count
      expect((await extra.call('GET', '/v1/config', {key: extra.keys.livePk})).status).toBe(200)
      await setSetting(extra.store, false, 'project.monthlyRequestQuota', 0)
      expect((await extra.call('GET', '/v1/config', {key: extra.keys.testPk})).status).toBe(200)
      await extra.close() // flushes the counts
      // 3 answered + 1 after the quota was lifted in test, 1 in live; the 402s are not counted
      const month = new Date().toISOString().slice(0, 7)
      expect(extra.store.sqlite.prepare('SELECT live, month, requests FROM usage ORDER BY live').all()).toEqual([
        {live: 0, month, requests: 4},
        {live: 1, month, requests: 1},
      ])
    } finally {
      await extra.stop()
    }
  })

  it('keeps test and live data apart: a test key never sees what a live key wrote', async () => {
    const written = await s.call('PATCH', '/v1/settings', {key: s.keys.liveSk, body: {chainMappings: {starbucks: 'sb-1'}}})
    expect(written.status).toBe(200)
    expect(written.body.chainMappings).toEqual({starbucks: 'sb-1'})
    const test = await s.call('GET', '/v1/settings', {key: s.keys.testSk})
    expect(test.body.chainMappings).toEqual({})
    const live = await s.call('GET', '/v1/settings', {key: s.keys.liveSk})
    expect(live.body.chainMappings).toEqual({starbucks: 'sb-1'})
  })
})

describe('bodies and errors', () => {
  it('accepts form-encoded bodies like JSON ones', async () => {
    const r = await s.call('PATCH', '/v1/settings', {
      key: s.keys.testSk,
      body: 'chainMappings[walmart]=wm-9&placeFilters[chain]=walmart,target',
      headers: {'content-type': 'application/x-www-form-urlencoded'},
    })
    expect(r.status).toBe(200)
    expect(r.body.chainMappings).toEqual({walmart: 'wm-9'})
    expect(r.body.placeFilters).toEqual({chain: ['walmart', 'target']})
  })

  it('reports an invalid field with its param and a statement of what is valid, changing nothing', async () => {
    const before = await s.call('GET', '/v1/settings', {key: s.keys.testSk})
    const r = await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: {chainMappings: {a: 'x'}, placeFilters: {chain: 5}}})
    expect(r.status).toBe(400)
    expect(r.body).toEqual({meta: {code: 400, error: 'invalid_parameter', param: 'placeFilters.chain', message: 'placeFilters.chain: must be an array'}})
    expect(await s.call('GET', '/v1/settings', {key: s.keys.testSk})).toMatchObject({body: before.body})
    const unknown = await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: {placeFilters: {bogus: 1, chain: ['a']}}})
    expect(unknown.body).toEqual({meta: {code: 400, error: 'invalid_parameter', param: 'placeFilters', message: 'placeFilters: must not have the key "bogus"'}})
    expect(await s.call('GET', '/v1/settings', {key: s.keys.testSk})).toMatchObject({body: before.body})
  })

  it('refuses a placeFilters category the import never assigns, naming the entry, changing nothing; takes a real one', async () => {
    const before = await s.call('GET', '/v1/settings', {key: s.keys.testSk})
    const r = await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: {chainMappings: {a: 'x'}, placeFilters: {category: ['food', 'cafe', 'restaurants']}}})
    expect(r.status).toBe(400)
    expect(r.body.meta).toMatchObject({code: 400, error: 'invalid_parameter', param: 'placeFilters.category.2'})
    expect(r.body.meta.message).toMatch(/^placeFilters\.category\.2: each must be a place category loc's import assigns: .*\bfood\b/)
    expect(await s.call('GET', '/v1/settings', {key: s.keys.testSk})).toMatchObject({body: before.body})
    const ok = await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: {placeFilters: {category: ['food', 'cafe']}}})
    expect(ok.status).toBe(200)
    expect(ok.body.placeFilters).toEqual({category: ['food', 'cafe']})
    await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: {placeFilters: before.body.placeFilters}})
  })

  it('answers malformed JSON with 400 param body', async () => {
    const r = await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: '{"chainMappings": '})
    expect(r.status).toBe(400)
    expect(r.body.meta).toEqual({code: 400, error: 'malformed_body', param: 'body', message: 'body: must be valid JSON'})
  })

  it('answers bodies over 1 MiB with 413', async () => {
    const r = await s.call('PATCH', '/v1/settings', {key: s.keys.testSk, body: {chainMappings: {big: 'x'.repeat(1_100_000)}}})
    expect(r.status).toBe(413)
    expect(r.body.meta).toMatchObject({code: 413, error: 'body_too_large', param: 'body'})
  })

  it('refuses a body of another content type, naming it, and stores nothing; no body of any type is fine', async () => {
    const users = () => s.store.sqlite.prepare("SELECT count(*) FROM users WHERE device_id = 'plain'").pluck().get()
    const r = await s.call('POST', '/v1/track', {key: s.keys.testPk, headers: {'content-type': 'text/plain'}, body: '{"deviceId":"plain","latitude":43.73,"longitude":7.42}'})
    expect(r.status).toBe(400)
    expect(r.body.meta).toEqual({code: 400, error: 'malformed_body', param: 'body',
      message: 'body: must be JSON (Content-Type: application/json) or a form (application/x-www-form-urlencoded), not text/plain'})
    expect(users()).toBe(0)
    expect((await s.call('POST', '/v1/users/refresh', {key: s.keys.testSk, headers: {'content-type': 'text/plain'}})).body.meta.param).toBe('userIds')
  })

  it('treats a GET with Content-Type application/json and no body as normal', async () => {
    const r = await s.call('GET', '/v1/config', {key: s.keys.testPk, headers: {'content-type': 'application/json'}})
    expect(r.status).toBe(200)
  })
})

describe('CORS (compat with browser SDKs)', () => {
  it('answers a preflight naming Authorization with 204 and the allow headers', async () => {
    const r = await fetch(`${s.url}/v1/track`, {
      method: 'OPTIONS',
      headers: {origin: 'https://shop.example', 'access-control-request-method': 'POST', 'access-control-request-headers': 'authorization,content-type,x-radar-device-type'},
    })
    expect(r.status).toBe(204)
    expect(r.headers.get('access-control-allow-origin')).toBe('https://shop.example')
    expect(r.headers.get('access-control-allow-headers')).toMatch(/authorization/i)
    expect(r.headers.get('access-control-allow-methods')).toContain('PATCH')
  })

  it('puts the allow-origin on real responses, errors included, and exposes X-Request-Id', async () => {
    for (const key of [s.keys.testPk, 'bad']) {
      const r = await s.call('GET', '/v1/config', {key, headers: {origin: 'https://shop.example'}})
      expect(r.headers.get('access-control-allow-origin')).toBe('https://shop.example')
      expect(r.headers.get('access-control-expose-headers')).toContain('X-Request-Id')
      expect(r.headers.get('access-control-expose-headers')).toContain('X-Radar-Request-Id')
    }
  })

  it('repeats X-Request-Id as X-Radar-Request-Id on every response, errors and unknown routes included', async () => {
    for (const [path, key] of [['/v1/config', s.keys.testPk], ['/v1/config', 'bad'], ['/v1/nope', s.keys.testSk], ['/health', undefined]]) {
      const r = await s.call('GET', path!, {key})
      expect(r.headers.get('x-request-id'), path).toMatch(/^[\w-]+$/)
      expect(r.headers.get('x-radar-request-id'), path).toBe(r.headers.get('x-request-id'))
    }
    const own = await s.call('GET', '/v1/config', {key: s.keys.testPk, headers: {'x-request-id': 'mine-1'}})
    expect(own.headers.get('x-radar-request-id')).toBe('mine-1')
  })
})

describe('rate limits', () => {
  it('counts GET /v1/config per device (deviceId or installId, else the client IP), never per key', async () => {
    const limited = await startTestServer({rateLimits: {config: 2}})
    const config = (query: string, key = limited.keys.testPk) => limited.call('GET', `/v1/config${query}`, {key})
    try {
      // limits count per wall-clock second: start at the beginning of one so all requests share it
      await new Promise((r) => setTimeout(r, 1005 - (Date.now() % 1000)))
      // two devices behind the same publishable key each have their own budget
      expect((await config('?deviceId=a')).status).toBe(200)
      expect((await config('?deviceId=a')).status).toBe(200)
      expect((await config('?deviceId=b')).status).toBe(200)
      expect((await config('?installId=c')).status).toBe(200)
      // the same device over its budget, whatever key it uses
      const refused = await config('?deviceId=a', limited.keys.livePk)
      expect(refused.status).toBe(429)
      expect(refused.body.meta).toMatchObject({code: 429, error: 'rate_limited'})
      expect(refused.headers.get('retry-after')).toBe('1')
      // without an id the client IP is the bucket: every key from 127.0.0.1 shares it
      expect((await config('')).status).toBe(200)
      expect((await config('', limited.keys.liveSk)).status).toBe(200)
      expect((await config('', limited.keys.testSk)).status).toBe(429)
    } finally {
      await limited.stop()
    }
  })

  it('refuses the request over the limit with 429, Retry-After and X-RateLimit headers, and changes nothing', async () => {
    const limited = await startTestServer({rateLimits: {data: 2}})
    try {
      const ok = await limited.call('GET', '/v1/settings', {key: limited.keys.testSk})
      expect(ok.status).toBe(200)
      expect(ok.headers.get('x-ratelimit-limit')).toBe('2')
      expect(ok.headers.get('x-ratelimit-remaining')).toBe('1')
      const reset = Number(ok.headers.get('x-ratelimit-reset'))
      expect(reset).toBeGreaterThanOrEqual(Math.floor(Date.now() / 1000))
      expect(reset).toBeLessThanOrEqual(Math.ceil(Date.now() / 1000) + 2)

      await limited.call('GET', '/v1/settings', {key: limited.keys.testSk})
      const refused = await limited.call('PATCH', '/v1/settings', {key: limited.keys.testSk, body: {chainMappings: {a: 'b'}}})
      expect(refused.status).toBe(429)
      expect(refused.body.meta).toMatchObject({code: 429, error: 'rate_limited'})
      expect(refused.headers.get('retry-after')).toBe('1')
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0')

      // another key has its own budget, and the refused PATCH wrote nothing
      const other = await limited.call('GET', '/v1/settings', {key: limited.keys.liveSk})
      expect(other.status).toBe(200)
      const {body} = await limited.call('GET', '/v1/settings', {key: limited.keys.liveSk})
      expect(body.meta.code).toBe(200)
      expect((await limited.call('GET', '/v1/settings', {key: limited.keys.liveSk})).status).toBe(429)
      await new Promise((r) => setTimeout(r, 1100))
      const after = await limited.call('GET', '/v1/settings', {key: limited.keys.testSk})
      expect(after.status).toBe(200)
      expect(after.body.chainMappings).toEqual({})
    } finally {
      await limited.stop()
    }
  })
})
