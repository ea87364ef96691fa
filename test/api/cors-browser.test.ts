import {existsSync} from 'node:fs'
import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {chromium, type Browser} from 'playwright-core'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'

const CHROMIUM = process.env.LOC_CHROMIUM ?? '/usr/bin/chromium'
// CI installs Debian's chromium and sets LOC_REQUIRE_CHROMIUM (.ci/run); elsewhere the suite skips without it.
const haveChromium = existsSync(CHROMIUM)
if (!haveChromium && process.env.LOC_REQUIRE_CHROMIUM) throw new Error(`LOC_REQUIRE_CHROMIUM is set but ${CHROMIUM} is missing`)

let loc: TestServer
let page: Server
let pageUrl: string
let browser: Browser

beforeAll(async () => {
  if (!haveChromium) return
  loc = await startTestServer()
  // the app's page lives on another origin (another port), as a shop's site would
  page = createServer((_req, res) => {
    res.setHeader('content-type', 'text/html')
    res.end('<!doctype html><title>shop</title>')
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
