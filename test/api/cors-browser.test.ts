import {existsSync, readFileSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {chromium, type Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'

const CHROMIUM = process.env.LOC_CHROMIUM ?? '/usr/bin/chromium'
const RADAR_SDK = new URL('../../node_modules/radar-sdk-js/dist/radar.js', import.meta.url)
// CI installs Debian's chromium and sets LOC_REQUIRE_CHROMIUM (.ci/run); elsewhere the suite skips without it.
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium && process.env.LOC_REQUIRE_CHROMIUM) throw new Error(`LOC_REQUIRE_CHROMIUM is set but ${CHROMIUM} is missing`)

let loc: TestServer
let page: Server
let pageUrl: string
let browser: Browser

beforeAll(async () => {
  if (!haveChromium) return
  // the track limit as shipped (1 a second a device): the SDK must read loc's 429 as its own rate-limit error
  loc = await startTestServer({rateLimits: {track: 1}})
  // the app's page lives on another origin (another port), as a shop's site would
  page = createServer((req, res) => {
    // the hosted original's web SDK as a shop's page loads it (its ES module, unchanged)
    if (req.url === '/radar.js') {
      res.setHeader('content-type', 'text/javascript')
      return res.end(readFileSync(RADAR_SDK))
    }
    res.setHeader('content-type', 'text/html')
    res.end(req.url === '/sdk' ? '<!doctype html><title>shop</title><script type="module">import Radar from "/radar.js"; window.Radar = Radar</script>'
      : '<!doctype html><title>shop</title>')
  })
  await new Promise<void>((resolve) => page.listen(0, '127.0.0.1', resolve))
  pageUrl = `http://localhost:${(page.address() as AddressInfo).port}/`
  browser = await chromium.launch({
    executablePath: CHROMIUM,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  })
})

afterAll(async () => {
  await browser?.close()
  await new Promise((resolve) => page?.close(resolve))
  await loc?.stop()
})

describe.skipIf(!haveChromium)('CORS from a real browser page', () => {
  it('lets a page on another origin call the API with Authorization (preflighted) and read errors and headers', async () => {
    const tab = await browser.newPage()
    await tab.goto(pageUrl)
    const results = await tab.evaluate(async ({api, key}) => {
      const ok = await fetch(`${api}/v1/settings`, {method: 'PATCH', headers: {Authorization: key, 'Content-Type': 'application/json', 'X-Radar-Device-Type': 'Web'}, body: JSON.stringify({chainMappings: {cafe: 'c-1'}})})
      const denied = await fetch(`${api}/v1/config`, {headers: {Authorization: 'wrong'}})
      return {
        status: ok.status,
        body: await ok.json(),
        requestId: ok.headers.get('X-Request-Id'),
        remaining: ok.headers.get('X-RateLimit-Remaining'),
        deniedStatus: denied.status,
        deniedBody: await denied.json(),
      }
    }, {api: loc.url, key: loc.keys.testSk})
    expect(results.status).toBe(200)
    expect(results.body.chainMappings).toEqual({cafe: 'c-1'})
    expect(results.requestId).toBeTruthy()
    expect(results.remaining).not.toBeNull()
    expect(results.deniedStatus).toBe(401)
    expect(results.deniedBody.meta.code).toBe(401)
    await tab.close()
  })
})

describe.skipIf(!haveChromium)('the hosted original web SDK in a real browser page', () => {
  it('tracks the browser geolocation across origins and reads answers and refusals as its own', async () => {
    await loc.call('PUT', '/v1/geofences/venue/stadium', {key: loc.keys.testSk, body: {type: 'circle', coordinates: [7.4155, 43.7276], radius: 200, description: 'Stade Louis II'}})
    const context = await browser.newContext({geolocation: {latitude: 43.7276, longitude: 7.4155, accuracy: 25}, permissions: ['geolocation']})
    const tab = await context.newPage()
    await tab.goto(`${pageUrl}sdk`)
    await tab.waitForFunction(() => 'Radar' in window)
    const results = await tab.evaluate(async ({api, key}) => {
      const Radar = (window as any).Radar
      const errors = Radar.errors
      Radar.initialize(key, {host: api, logLevel: 'none'})
      Radar.setUserId('browser-user')
      // the limit counts per clock second: both tracks early in one
      await new Promise((resolve) => setTimeout(resolve, 1005 - (Date.now() % 1000)))
      const tracked = await Radar.trackOnce()
      const limited = await Radar.trackOnce().then(() => 'answered', (e: Error) => e instanceof errors.RadarRateLimitError)
      const context = await Radar.getContext({latitude: 43.7276, longitude: 7.4155})
      Radar.initialize('prj_test_pk_0000000000000000000000000000000000000000', {host: api, logLevel: 'none'})
      const unauthorized = await Radar.getContext({latitude: 43.7276, longitude: 7.4155}).then(() => 'answered', (e: Error) => e instanceof errors.RadarUnauthorizedError)
      return {user: tracked.user, events: tracked.events, location: tracked.location, context, limited, unauthorized, deviceId: localStorage.getItem('radar-deviceId')}
    }, {api: loc.url, key: loc.keys.testPk})
    expect(results.location).toEqual({latitude: 43.7276, longitude: 7.4155, accuracy: 25})
    expect(results.user).toMatchObject({userId: 'browser-user', deviceType: 'Web', deviceId: results.deviceId, locationAccuracy: 25})
    expect(results.events.map((e: any) => [e.type, e.geofence.externalId])).toEqual([['user.entered_geofence', 'stadium']])
    expect(results.context.geofences.map((g: any) => g.externalId)).toEqual(['stadium'])
    expect(results.limited).toBe(true)
    expect(results.unauthorized).toBe(true)
    await context.close()
  })
})
