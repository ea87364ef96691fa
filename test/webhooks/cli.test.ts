import {execFile} from 'node:child_process'
import {rmSync} from 'node:fs'
import path from 'node:path'
import {promisify} from 'node:util'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createKey} from '../../src/project/keys.js'
import {openStore, type Store} from '../../src/store/db.js'
import {verifyLocSignature, verifyRadarSignature} from '../../src/webhooks/signing.js'
import {type ServeProcess, spawnServe, tempDir} from '../helpers.js'
import {type Receiver, type Received, startReceiver} from './receiver.js'

const run = promisify(execFile)
const BIN = path.resolve('bin/run.js')
const ENV = {LOC_WEBHOOKS__ALLOW_PRIVATE: 'true', LOC_WEBHOOKS__POLL_MS: '50', LOC_WEBHOOKS__TIMEOUT_MS: '1000', LOC_WEBHOOKS__LEASE_MS: '3000', LOC_WEBHOOKS__RETRY_DELAYS_MS: '[50,50]'}

let dataDir: string
let receiver: Receiver
let store: Store
let key: string

async function loc(...args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  try {
    const {stdout, stderr} = await run('node', [BIN, ...args], {env: {...process.env, ...ENV, LOC_DATA_DIR: dataDir, LOC_LOG_LEVEL: 'silent'}})
    return {code: 0, stdout, stderr}
  } catch (error) {
    const e = error as {code: number; stdout: string; stderr: string}
    return {code: e.code, stdout: e.stdout, stderr: e.stderr}
  }
}
const serve = () => spawnServe([], {...ENV, LOC_DATA_DIR: dataDir, LOC_LOG_LEVEL: 'info'})
const convert = async (server: ServeProcess, name: string) => {
  const res = await fetch(`${server.url}/v1/events`, {method: 'POST', headers: {authorization: key, 'content-type': 'application/json'}, body: JSON.stringify({name})})
  expect(res.status).toBe(200)
  return ((await res.json()) as {event: {_id: string}}).event._id
}
const signedWith = (secret: string, r: Received) =>
  verifyLocSignature(secret, r.body, r.headers['x-loc-signature'] as string) &&
  verifyRadarSignature(secret, r.headers['x-radar-signing-id'] as string, r.headers['x-radar-signature'] as string)

beforeAll(async () => {
  dataDir = tempDir('loc-webhooks-')
  receiver = await startReceiver()
  store = await openStore(dataDir)
  key = createKey(store, 'publishable', 'test').key
})
afterAll(async () => {
  await store.close()
  await receiver.close()
  rmSync(dataDir, {recursive: true, force: true})
})

// every step runs `loc` as a real process: slow on a loaded machine
describe('loc webhooks', {timeout: 180_000}, () => {
  let id: string
  let secret: string

  it('add prints the secret once; list never shows it; test sends a signed sample; rotate-secret replaces it', async () => {
    const added = await loc('webhooks', 'add', `${receiver.url}/hooks?token=receiver-own`, '--env', 'test')
    expect(added.code).toBe(0)
    secret = added.stdout.trim()
    expect(secret).toMatch(/^whsec_[0-9a-f]{48}$/)
    id = /added webhook ([0-9a-f]{24})/.exec(added.stderr)![1]
    expect(added.stderr).not.toContain('receiver-own')
    const list = await loc('webhooks', 'list')
    // under a header row, as keys list and webhooks deliveries print theirs
    const [header, row] = list.stdout.split('\n')
    expect(header).toMatch(/^ID +ENV +DELIVERY +OWED +URL +TYPES$/)
    expect(row).toMatch(new RegExp(`^${id}  test  single +0  ${receiver.url}/hooks\\?…  every type$`))
    expect(row.indexOf('test')).toBe(header.indexOf('ENV'))
    expect(list.stdout).not.toContain(secret)
    // the query may hold the receiver's own token (docs/api/webhooks.md): shown elided, as sync URLs are
    expect(list.stdout).not.toContain('receiver-own')
    expect(list.stdout).toContain(`${receiver.url}/hooks?…`)

    const tested = await loc('webhooks', 'test', id)
    expect(tested.stdout).toMatch(/acknowledged: HTTP 200/)
    const [sample] = await receiver.acked(1)
    expect(sample.json.event.type).toBe('webhook.test')
    expect(signedWith(secret, sample)).toBe(true)

    const rotated = await loc('webhooks', 'rotate-secret', id)
    const fresh = rotated.stdout.trim()
    expect(fresh).toMatch(/^whsec_/)
    expect(fresh).not.toBe(secret)
    await loc('webhooks', 'test', id)
    const [, second] = await receiver.acked(2)
    expect(signedWith(fresh, second)).toBe(true)
    expect(signedWith(secret, second)).toBe(false)
    secret = fresh

    receiver.reset()
  })

  it('add refuses an event type loc never records, adding nothing', async () => {
    const before = (await loc('webhooks', 'list')).stdout
    const res = await loc('webhooks', 'add', `${receiver.url}/typed`, '--env', 'test', '--types', 'user.entered_geofence,bogus.type')
    expect(res.code).toBe(2)
    expect(res.stderr).toMatch(/^error \[invalid_parameter\]: types\.1: each must be an event type: user.entered_geofence, /m)
    expect((await loc('webhooks', 'list')).stdout).toBe(before)
  })

  it('a kill -9 mid-delivery loses nothing: on restart the owed deliveries go out, in order; secrets are never logged', async () => {
    let first = true
    let held: () => void = () => undefined
    const heldUp = new Promise<void>((resolve) => (held = resolve))
    // the first request is held unanswered: the server dies while it is in flight
    receiver.answer = () => {
      if (!first) return 200
      first = false
      held()
      return new Promise<number>((resolve) => setTimeout(() => resolve(200), 5000))
    }
    const server = await serve()
    const ids: string[] = []
    for (let i = 0; i < 10; i++) ids.push(await convert(server, `killed_${i}`))
    await heldUp
    await server.kill('SIGKILL')
    const restarted = await serve()
    try {
      const got = await receiver.acked(10)
      // at least once, in order: the first occurrence of each event follows the order they were made
      const seen = [...new Set(got.map((r) => r.json.event._id as string))]
      expect(seen).toEqual(ids)
      expect(got.every((r) => signedWith(secret, r))).toBe(true)
    } finally {
      await restarted.stop()
    }
    const logs = server.output() + restarted.output()
    expect(logs).not.toContain(secret)
    expect(logs).not.toContain('receiver-own')
  })

  it('deliveries lists by status; replay re-sends one delivery, an event, or everything since a time', async () => {
    const delivered = await loc('webhooks', 'deliveries', '--status', 'delivered')
    const [header, ...lines] = delivered.stdout.trim().split('\n')
    expect(header).toMatch(/^\s*ID\s+WEBHOOK\s+EVENT\s+TYPE\s+STATUS\s+ATTEMPTS\s+LAST ERROR$/)
    expect(lines.length).toBeGreaterThanOrEqual(10)
    const [deliveryId, webhookId, eventId, type] = lines[0].trim().split(/\s+/)
    expect([webhookId, type]).toEqual([id, 'conversion'])

    receiver.reset()
    const server = await serve()
    try {
      expect((await loc('webhooks', 'replay', deliveryId)).stdout).toContain('queued 1 delivery')
      expect((await receiver.acked(1))[0].json.event._id).toBe(eventId)
      const since = await loc('webhooks', 'replay', '--since', '2000-01-01T00:00:00Z')
      expect(since.stdout).toContain('queued 10 deliveries')
      const again = (await receiver.acked(11)).slice(1).map((r) => r.json.event.name)
      expect(again).toEqual(Array.from({length: 10}, (_, i) => `killed_${i}`))
      expect((await loc('webhooks', 'deliveries', '--limit', '1')).stdout).toMatch(/\(replay of \d+\)/)
    } finally {
      await server.stop()
    }
    expect((await loc('webhooks', 'replay', '--since', 'yesterday-ish')).stderr).toContain('error [invalid_parameter]: since:')
  })

  it('deliveries and replay refuse a webhook id that names no webhook, as remove does', async () => {
    for (const args of [['deliveries', '--webhook', 'nope'], ['replay', '--since', '2000-01-01T00:00:00Z', '--webhook', 'nope'], ['remove', 'nope']]) {
      const res = await loc('webhooks', ...args)
      expect(res.code).toBe(1)
      expect(res.stderr.trim()).toBe('error [not_found]: webhook nope not found')
      expect(res.stdout).toBe('')
    }
  })
})
