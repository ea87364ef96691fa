import {afterAll, afterEach, beforeAll, describe, expect, it} from 'vitest'
import {recordEvents} from '../../src/events/recorder.js'
import {write} from '../../src/store/write.js'
import {createLogger} from '../../src/log.js'
import {openSystem} from '../../src/system.js'
import {addWebhook, removeWebhook} from '../../src/webhooks/registry.js'
import {startDeliveries} from '../../src/webhooks/worker.js'
import {verifyLocSignature, verifyRadarSignature} from '../../src/webhooks/signing.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {type Receiver, startReceiver} from './receiver.js'

// retries quick enough for a test, and spread enough that a loaded machine does not dead-letter a test's deliveries
const FAST = {allowPrivate: true, retryDelaysMs: [30, 100, 200, 400, 800, 1600, 3200, 6400], pollMs: 50, timeoutMs: 1000, leaseMs: 2000}
const SHORT = {...FAST, retryDelaysMs: [20, 20]}

let server: TestServer
let receiver: Receiver
const hooks: string[] = []

beforeAll(async () => {
  server = await startTestServer({webhooks: FAST})
  receiver = await startReceiver()
})
afterAll(async () => {
  await server.stop()
  await receiver.close()
})
afterEach(() => {
  for (const id of hooks.splice(0)) removeWebhook(server.store, id)
  receiver.reset()
  receiver.answer = () => 200
})

const hook = (path: string, options: {types?: string[]; batch?: boolean; live?: boolean} = {}) => {
  const added = addWebhook(server.store, options.live ?? false, {url: receiver.url + path, ...options})
  hooks.push(added.webhook.id)
  return added
}
const convert = async (name: string, userId = 'u1') => {
  const res = await server.call('POST', '/v1/events', {key: server.keys.testPk, body: {name, userId}})
  expect(res.status).toBe(200)
  return res.body.event._id as string
}
const outbox = (webhookId: string) =>
  server.store.sqlite.prepare('SELECT status, attempts, last_error FROM webhook_outbox WHERE webhook_id = ? ORDER BY id').all(webhookId) as any[]

describe('webhook delivery to a real receiver', () => {
  it('POSTs {event, user} signed with both signatures, which verify with the secret shown once', async () => {
    const {webhook, secret} = hook('/signed')
    const id = await convert('checkout')
    const [got] = await receiver.acked(1)
    expect(got.json.event).toMatchObject({_id: id, type: 'conversion', name: 'checkout', live: false})
    expect(got.json).toHaveProperty('user', null)
    expect(got.headers['content-type']).toBe('application/json')
    expect(verifyLocSignature(secret, got.body, got.headers['x-loc-signature'] as string)).toBe(true)
    expect(verifyRadarSignature(secret, got.headers['x-radar-signing-id'] as string, got.headers['x-radar-signature'] as string)).toBe(true)
    // a changed body, a wrong secret or an old timestamp do not verify
    expect(verifyLocSignature(secret, got.body.replace('checkout', 'checkouT'), got.headers['x-loc-signature'] as string)).toBe(false)
    expect(verifyLocSignature(`${secret}x`, got.body, got.headers['x-loc-signature'] as string)).toBe(false)
    expect(verifyLocSignature(secret, got.body, got.headers['x-loc-signature'] as string, 300, Date.now() / 1000 + 3600)).toBe(false)
    expect(verifyRadarSignature(`${secret}x`, got.headers['x-radar-signing-id'] as string, got.headers['x-radar-signature'] as string)).toBe(false)
    await expect.poll(() => outbox(webhook.id)).toEqual([{status: 'delivered', attempts: 1, last_error: null}])
  })

  it('sends a batch webhook the events of one user in chunks of 5, in order', async () => {
    hook('/batch', {batch: true})
    const events = Array.from({length: 12}, (_, i) => ({type: 'user.started_trip', userId: 'u2', body: {n: i, user: {userId: 'u2'}}}))
    const rows = write(server.store, (tx) => recordEvents(tx, false, events))
    const got = await receiver.acked(3)
    expect(got.map((r) => r.json.events.length)).toEqual([5, 5, 2])
    expect(got.flatMap((r) => r.json.events.map((e: any) => e._id))).toEqual(rows.map((r) => r.id))
    expect(got[0].json.user).toEqual({userId: 'u2'})
    expect(got[0].json).not.toHaveProperty('event')
  })

  it('sends a webhook only the types it asked for, and only events of its environment', async () => {
    hook('/trips', {types: ['user.started_trip', 'user.arrived_at_trip_destination']})
    hook('/live', {live: true})
    write(server.store, (tx) => recordEvents(tx, false, [
      {type: 'user.entered_geofence', body: {}}, {type: 'user.started_trip', body: {}}, {type: 'user.arrived_at_trip_destination', body: {}},
    ]))
    await convert('not_for_trips')
    const got = await receiver.acked(2)
    await new Promise((resolve) => setTimeout(resolve, 150))
    expect(receiver.received.map((r) => r.json.event.type)).toEqual(['user.started_trip', 'user.arrived_at_trip_destination'])
    expect(got).toHaveLength(2)
  })

  it('holds every event while the receiver is down and delivers them all, in order, when it is back', async () => {
    const {webhook} = hook('/down')
    await receiver.down()
    const ids: string[] = []
    for (let i = 0; i < 15; i++) ids.push(await convert(`order_${i}`))
    await expect.poll(() => outbox(webhook.id)[0].attempts, {timeout: 3000}).toBeGreaterThanOrEqual(2)
    expect(outbox(webhook.id)[0].status).toBe('failed')
    expect(outbox(webhook.id)[0].last_error).toBe('ECONNREFUSED')
    // the others wait behind the first: ordered delivery
    expect(outbox(webhook.id).slice(1).every((d) => d.attempts === 0)).toBe(true)
    await receiver.up()
    const got = await receiver.acked(15)
    expect(got.map((r) => r.json.event._id)).toEqual(ids)
    await expect.poll(() => outbox(webhook.id).every((d) => d.status === 'delivered')).toBe(true)
  })

  it('counts deliveries, failures, owed and dead deliveries and the latency on /metrics', async () => {
    hook('/metrics')
    await convert('measured')
    await receiver.acked(1)
    const text = await (await fetch(`${server.url}/metrics`)).text()
    expect(Number(/^loc_webhook_deliveries_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0)
    expect(Number(/^loc_webhook_failed_attempts_total (\d+)$/m.exec(text)?.[1])).toBeGreaterThan(0)
    expect(text).toMatch(/^loc_webhook_outbox\{status="pending"\} \d+$/m)
    expect(text).toMatch(/^loc_webhook_delivery_latency_seconds_count \d+$/m)
    expect(text).toMatch(/^loc_webhook_delivery_latency_seconds_bucket\{le="0.05"\} \d+$/m)
  })
})

describe('several workers on one store', () => {
  it('never send one delivery twice: each event arrives once, in order', async () => {
    // a second process's worst case: its own connection to the same file and its own worker
    const other = await openSystem(server.config, {log: createLogger('silent')})
    const worker = startDeliveries(other)
    try {
      hook('/shared')
      receiver.answer = () => new Promise((resolve) => setTimeout(() => resolve(200), 2))
      const ids: string[] = []
      for (let i = 0; i < 40; i++) ids.push(await convert(`shared_${i}`))
      const got = await receiver.acked(40)
      await new Promise((resolve) => setTimeout(resolve, 200))
      expect(receiver.received.map((r) => r.json.event._id)).toEqual(ids)
      expect(got).toHaveLength(40)
    } finally {
      await worker.stop()
      await other.close()
    }
  })
})

describe('dead letters', () => {
  it('retries a failing receiver on the schedule, never follows a redirect, then dead-letters', async () => {
    const short = await startTestServer({webhooks: SHORT})
    try {
      const {webhook} = addWebhook(short.store, false, {url: receiver.url + '/redirect'})
      const rows = () => short.store.sqlite.prepare('SELECT status, attempts, last_error FROM webhook_outbox WHERE webhook_id = ? ORDER BY id').all(webhook.id) as any[]
      receiver.answer = () => 302
      await short.call('POST', '/v1/events', {key: short.keys.testPk, body: {name: 'never_acked'}})
      await expect.poll(() => rows()[0]?.status, {timeout: 5000}).toBe('dead')
      expect(rows()[0]).toEqual({status: 'dead', attempts: SHORT.retryDelaysMs.length + 1, last_error: 'HTTP 302'})
      expect(receiver.received).toHaveLength(SHORT.retryDelaysMs.length + 1)
      // a dead delivery no longer holds the ones behind it
      receiver.answer = () => 200
      const res = await short.call('POST', '/v1/events', {key: short.keys.testPk, body: {name: 'after_dead'}})
      expect((await receiver.acked(1))[0].json.event._id).toBe(res.body.event._id)
      const text = await (await fetch(`${short.url}/metrics`)).text()
      expect(text).toMatch(/^loc_webhook_outbox\{status="dead"\} 1$/m)
      expect(Number(/^loc_webhook_dead_total (\d+)$/m.exec(text)?.[1])).toBe(1)
    } finally {
      await short.stop()
    }
  })

  it('counts attempts per event in a batch: one that joined a failing batch is not dead-lettered with its head', async () => {
    // the head's 3rd and 4th (last) attempts are 1 s apart: room to add an event between them
    const batchy = await startTestServer({webhooks: {...FAST, retryDelaysMs: [300, 1000, 1000]}})
    try {
      const {webhook} = addWebhook(batchy.store, false, {url: receiver.url + '/batch-dead', batch: true})
      const rows = () => batchy.store.sqlite.prepare('SELECT status, attempts FROM webhook_outbox WHERE webhook_id = ? ORDER BY id').all(webhook.id) as any[]
      const post = async (name: string) =>
        (await batchy.call('POST', '/v1/events', {key: batchy.keys.testPk, body: {name, userId: 'bdl'}})).body.event._id as string
      receiver.answer = () => 500
      const a = await post('ev_a')
      await expect.poll(() => rows()[0].attempts, {timeout: 5000}).toBe(2)
      const b = await post('ev_b')
      const sent = (id: string) => receiver.received.filter((r) => r.json.events.some((e: any) => e._id === id)).length
      await expect.poll(() => rows()[0].status, {timeout: 5000}).toBe('dead')
      // the head is spent; ev_b is still owed, with the attempts it made
      expect(rows()[1]).toEqual({status: 'failed', attempts: sent(b)})
      receiver.answer = () => 200
      await expect.poll(() => rows()[1].status, {timeout: 10_000}).toBe('delivered')
      // ev_b did fail in a batch with the head (the case at hand), and each counts its own attempts
      expect(receiver.received.some((r) => r.json.events.map((e: any) => e._id).join() === `${a},${b}`)).toBe(true)
      expect(rows()).toEqual([{status: 'dead', attempts: 4}, {status: 'delivered', attempts: sent(b)}])
      expect(sent(a)).toBe(4)
      expect(sent(b)).toBeGreaterThanOrEqual(2)
      expect(receiver.received.at(-1)!.json.events.map((e: any) => e._id)).toEqual([b])
    } finally {
      await batchy.stop()
    }
  })

  it('retries an event that joined a failing batch on its own backoff, not at the head\'s times', async () => {
    // a schedule whose later delays are shorter than the first (config allows any): the head's
    // retries come 50 ms apart while an event failing for the first time is owed 1.5 s
    const delays = [1500, 50, 50]
    const batchy = await startTestServer({webhooks: {...FAST, retryDelaysMs: delays}})
    try {
      const {webhook} = addWebhook(batchy.store, false, {url: receiver.url + '/batch-own-times', batch: true})
      const rows = () => batchy.store.sqlite.prepare('SELECT status, attempts FROM webhook_outbox WHERE webhook_id = ? ORDER BY id').all(webhook.id) as any[]
      // a1 and a2 are born together (one track's events); b comes after their first attempt
      const [a1, a2] = write(batchy.store, (tx) => recordEvents(tx, false, ['a1', 'a2'].map((name) =>
        ({type: 'conversion', userId: 'own', body: {name, user: {userId: 'own'}}})))).map((e) => e.id)
      const ids = (r: {json: any}) => r.json.events.map((e: any) => e._id) as string[]
      // the receiver refuses any request carrying a1, so a1 and a2 end dead and b gets through alone
      receiver.answer = (r) => (ids(r).includes(a1) ? 500 : 200)
      await expect.poll(() => rows()[0].attempts, {timeout: 5000}).toBe(1)
      const b = (await batchy.call('POST', '/v1/events', {key: batchy.keys.testPk, body: {name: 'b', userId: 'own'}})).body.event._id as string
      await expect.poll(() => rows()[2]?.status, {timeout: 10_000}).toBe('delivered')
      expect(rows()).toEqual([{status: 'dead', attempts: 4}, {status: 'dead', attempts: 4}, {status: 'delivered', attempts: 2}])
      // events born together stay together; b joined the head's 2nd attempt, then waited its own 1.5 s
      expect(receiver.received.map(ids)).toEqual([[a1, a2], [a1, a2, b], [a1, a2], [a1, a2], [b]])
      const [first, second] = receiver.received.filter((r) => ids(r).includes(b)).map((r) => r.at)
      expect(second - first).toBeGreaterThanOrEqual(0.8 * delays[0] - 5)
      // and not delayed past its own schedule
      expect(second - first).toBeLessThan(1.2 * delays[0] + 2000)
    } finally {
      await batchy.stop()
    }
  })
})

describe('webhook targets', () => {
  it('refuses to send to a private or loopback address unless the config allows it', async () => {
    const strict = await startTestServer({webhooks: {...FAST, allowPrivate: false}})
    try {
      const {webhook} = addWebhook(strict.store, false, {url: receiver.url + '/private'})
      await strict.call('POST', '/v1/events', {key: strict.keys.testPk, body: {name: 'x'}})
      await expect.poll(() => strict.store.sqlite.prepare('SELECT last_error FROM webhook_outbox WHERE webhook_id = ?').pluck().get(webhook.id))
        .toBe('private address refused (webhooks.allowPrivate is off)')
      expect(receiver.received).toHaveLength(0)
    } finally {
      await strict.stop()
    }
  })
})
