import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'
import {addWebhook} from '../../src/webhooks/registry.js'
import {startReceiver, type Receiver} from '../webhooks/receiver.js'

// the user's geofences in each event are stored once as event parts (events/parts.ts): every way
// an event is read gives it back whole, as track answered it
let server: TestServer
let receiver: Receiver
beforeAll(async () => {
  server = await startTestServer({webhooks: {allowPrivate: true, retryDelaysMs: [30, 100, 200], pollMs: 50, timeoutMs: 1000, leaseMs: 2000}})
  receiver = await startReceiver()
  addWebhook(server.store, false, {url: receiver.url + '/all'})
  for (const [id, radius] of [['1', 200], ['2', 300]] as const) {
    await put(id, `Shop ${id}`, radius)
  }
})
afterAll(async () => {
  await server.stop()
  await receiver.close()
})

const put = (id: string, description: string, radius: number) =>
  server.call('PUT', `/v1/geofences/shops/${id}`, {key: server.keys.testSk, body: {description, type: 'circle', coordinates: [7.42, 43.735], radius, metadata: {id}}})
const track = (latitude: number) => server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId: 'walker', latitude, longitude: 7.42, accuracy: 5, foreground: true}})
const sql = (text: string, ...args: unknown[]) => server.store.sqlite.prepare(text).all(...args) as any[]
const event = async (id: string) => (await server.call('GET', `/v1/events/${id}`, {key: server.keys.testSk})).body.event

describe('event parts: the geofences embedded in each event user, stored once', () => {
  it('stores each summary once and reads every event back exactly as track answered it: by id, listed, delivered', async () => {
    const res = await track(43.735)
    const events = res.body.events
    expect(events.map((e: any) => `${e.type} ${e.geofence.externalId}`)).toEqual(['user.entered_geofence 1', 'user.entered_geofence 2'])
    for (const e of events) expect(e.user).toEqual(res.body.user)
    expect(res.body.user.geofences.map((g: any) => g.description)).toEqual(['Shop 1', 'Shop 2'])

    const rows = sql('SELECT id, payload, parts FROM events ORDER BY rowid')
    expect(rows.map((r) => r.parts.split(',').length)).toEqual([2, 2])
    // the event's own geofence is in its payload; the user's geofences are not
    for (const r of rows) expect(r.payload.match(/"description":"Shop/g)).toHaveLength(1)
    expect(sql('SELECT count(*) AS n FROM event_parts')[0].n).toBe(2)

    for (const e of events) expect(await event(e._id)).toEqual(e)
    const listed = await server.call('GET', '/v1/events?limit=10', {key: server.keys.testSk})
    expect(listed.body.events).toEqual([...events].reverse())
    const delivered = (await receiver.acked(2)).map((r) => r.json.event)
    expect(delivered).toEqual(events)
  })

  it('an event keeps the geofences as they were when it happened; a changed geofence is a new part', async () => {
    const before = (await track(43.735)).body
    expect(before.events).toEqual([])
    await put('1', 'Shop 1 renamed', 200)
    // leave shop 1 (200 m) but not shop 2 (300 m), then come back
    const left = (await track(43.7372)).body
    const back = (await track(43.735)).body
    expect(left.events.map((e: any) => e.type)).toEqual(['user.exited_geofence'])
    expect(back.events.map((e: any) => e.type)).toEqual(['user.entered_geofence'])
    expect(back.events[0].user.geofences.map((g: any) => g.description)).toEqual(['Shop 1 renamed', 'Shop 2'])
    const [first] = sql('SELECT id FROM events ORDER BY rowid LIMIT 1')
    expect((await event(first.id)).user.geofences.map((g: any) => g.description)).toEqual(['Shop 1', 'Shop 2'])
    expect(await event(back.events[0]._id)).toEqual(back.events[0])
    expect(sql('SELECT count(*) AS n FROM event_parts')[0].n).toBe(3)
  })

  it('a verdict on an event keeps it whole', async () => {
    const [first] = sql('SELECT id FROM events ORDER BY rowid LIMIT 1')
    const original = await event(first.id)
    const verified = await server.call('PUT', `/v1/events/${first.id}/verification`, {key: server.keys.testSk, body: {verification: 'accept'}})
    expect(verified.status).toBe(200)
    const read = await event(first.id)
    expect(read).toEqual({...original, verification: 'accept', verifiedAt: expect.any(String)})
    expect(sql('SELECT parts FROM events WHERE id = ?', first.id)[0].parts).toBeNull()
  })
})
