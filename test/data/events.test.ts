import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {type NewEvent, recordEvents} from '../../src/events/recorder.js'
import {setSetting} from '../../src/project/settings.js'
import {insertUser} from '../../src/users/store.js'
import type {UserRow} from '../../src/users/json.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {snapshot} from './helpers.js'
import {write} from '../../src/store/write.js'

let s: TestServer
let user: UserRow

beforeAll(async () => {
  s = await startTestServer()
  user = await insertUser(s.store, false, {user_id: 'buyer', device_id: 'buyer-phone', lng: 7.42, lat: 43.73})
})
afterAll(async () => {
  await s.stop()
})

const record = (live: boolean, events: NewEvent[]) => write(s.store, (tx) => recordEvents(tx, live, events))
const log = (body: unknown, key = s.keys.testPk) => s.call('POST', '/v1/events', {key, body})

describe('POST /v1/events', () => {
  it('logs a conversion with every field and embeds the matching user', async () => {
    const r = await log({name: 'checkout_1', metadata: {sku: 'A1', qty: 2}, revenue: 12.5, userId: 'buyer', installId: 'abc123', createdAt: '2026-01-02T03:04:05Z', duration: 3})
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({code: 200})
    const e = r.body.event
    expect(e).toMatchObject({
      _id: expect.stringMatching(/^[0-9a-zA-Z]{24}$/), live: false, type: 'conversion', name: 'checkout_1',
      metadata: {sku: 'A1', qty: 2}, revenue: 12.5, installId: 'abc123', duration: 3,
      createdAt: '2026-01-02T03:04:05.000Z', actualCreatedAt: expect.any(String),
    })
    expect(e.user).toMatchObject({_id: user.id, userId: 'buyer', deviceId: 'buyer-phone', location: {type: 'Point', coordinates: [7.42, 43.73]}})
    expect(e.actualCreatedAt > e.createdAt).toBe(true)
  })

  it('matches the user by deviceId, takes revenue from metadata.revenue, and accepts userId null', async () => {
    const byDevice = await log({name: 'signup', deviceId: 'buyer-phone', userId: null, metadata: {revenue: '9.99'}})
    expect(byDevice.status).toBe(200)
    expect(byDevice.body.event.user._id).toBe(user.id)
    expect(byDevice.body.event.revenue).toBe(9.99)
    expect(byDevice.body.event.createdAt).toBe(byDevice.body.event.actualCreatedAt)

    const anonymous = await log({name: 'view', userId: null, revenue: 1, metadata: {revenue: 5}})
    expect(anonymous.body.event).toMatchObject({type: 'conversion', userId: null, revenue: 1, metadata: {revenue: 5}})
    expect(anonymous.body.event.user).toBeUndefined()
  })

  it('takes metadata.revenue as revenue only when it is a decimal number', async () => {
    const hex = await log({name: 'hex', metadata: {revenue: '0x10'}})
    expect(hex.body.event).toMatchObject({metadata: {revenue: '0x10'}})
    expect(hex.body.event.revenue).toBeUndefined()
    expect((await log({name: 'exp', metadata: {revenue: '1.5e1'}})).body.event.revenue).toBe(15)
  })

  it('accepts a form body', async () => {
    const r = await s.call('POST', '/v1/events', {
      key: s.keys.testSk, body: 'name=form_event&revenue=3&metadata=%7B%22a%22%3A1%7D', headers: {'content-type': 'application/x-www-form-urlencoded'},
    })
    expect(r.status).toBe(200)
    expect(r.body.event).toMatchObject({name: 'form_event', revenue: 3, metadata: {a: 1}})
  })

  it('refuses invalid fields with their param and stores nothing', async () => {
    const before = await snapshot(s, 'events')
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'name'],
      [{name: 'has space'}, 'name'],
      [{name: 'dash-ed'}, 'name'],
      [{name: ''}, 'name'],
      [{name: 'ok', revenue: 'lots'}, 'revenue'],
      [{name: 'ok', createdAt: 'yesterday'}, 'createdAt'],
      [{name: 'ok', duration: -1}, 'duration'],
      [{name: 'ok', metadata: {a: {b: 1}}}, 'metadata.a'],
      [{name: 'ok', metadata: Object.fromEntries(Array.from({length: 33}, (_, i) => [`k${i}`, i]))}, 'metadata'],
      [{name: 'ok', userId: 5}, 'userId'],
    ]
    for (const [body, param] of cases) {
      const r = await log(body)
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.meta.param).toBe(param)
      expect(r.body.meta.message.startsWith(`${param}: `)).toBe(true)
    }
    expect((await log({name: 'x'}, 'nonsense')).status).toBe(401)
    expect(await snapshot(s, 'events')).toEqual(before)
  })
})

describe('GET, DELETE and verification of /v1/events', () => {
  let ids: string[] = []
  beforeAll(async () => {
    write(s.store, (tx) => tx.run(s.store.db.deleteFrom('events')))
    const rows = record(false, [
      {type: 'user.entered_geofence', userRef: user.id, userId: 'buyer', createdAt: '2026-03-01T00:00:00.000Z', body: {geofence: {tag: 'store'}}},
      {type: 'user.exited_geofence', userRef: user.id, userId: 'buyer', createdAt: '2026-03-02T00:00:00.000Z', body: {duration: 4}},
      {type: 'conversion', userId: 'other', createdAt: '2026-03-03T00:00:00.000Z', body: {name: 'c'}},
      {type: 'user.entered_place', createdAt: '2026-03-04T00:00:00.000Z', body: {}},
    ])
    record(true, [{type: 'conversion', createdAt: '2026-03-05T00:00:00.000Z', body: {name: 'live'}}])
    ids = rows.map((r) => r.id)
  })

  it('lists newest createdAt first, with types, userId, cursors, limit and hasMore', async () => {
    const all = await s.call('GET', '/v1/events', {key: s.keys.testSk})
    expect(all.status).toBe(200)
    expect(all.body.meta).toEqual({code: 200, hasMore: false})
    expect(all.body.events.map((e: any) => e._id)).toEqual([...ids].reverse())
    expect(all.body.events[3]).toEqual({_id: ids[0], createdAt: '2026-03-01T00:00:00.000Z', actualCreatedAt: expect.any(String), live: false, type: 'user.entered_geofence', geofence: {tag: 'store'}})

    const typed = await s.call('GET', '/v1/events?types=user.entered_geofence,conversion', {key: s.keys.testSk})
    expect(typed.body.events.map((e: any) => e.type)).toEqual(['conversion', 'user.entered_geofence'])
    const byUser = await s.call('GET', '/v1/events?userId=buyer', {key: s.keys.testSk})
    expect(byUser.body.events.map((e: any) => e._id)).toEqual([ids[1], ids[0]])
    const byUserRef = await s.call('GET', `/v1/events?userId=${user.id}`, {key: s.keys.testSk})
    expect(byUserRef.body.events).toHaveLength(2)
    const window = await s.call('GET', '/v1/events?createdAfter=2026-03-01T12:00:00Z&createdBefore=2026-03-04', {key: s.keys.testSk})
    expect(window.body.events.map((e: any) => e._id)).toEqual([ids[2], ids[1]])
    const page = await s.call('GET', '/v1/events?limit=3', {key: s.keys.testSk})
    expect(page.body.events).toHaveLength(3)
    expect(page.body.meta.hasMore).toBe(true)

    const live = await s.call('GET', '/v1/events', {key: s.keys.liveSk})
    expect(live.body.events.map((e: any) => e.name)).toEqual(['live'])

    for (const [q, param] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['createdBefore=x', 'createdBefore'], ['createdAfter=x', 'createdAfter']]) {
      const r = await s.call('GET', `/v1/events?${q}`, {key: s.keys.testSk})
      expect(r.status).toBe(400)
      expect(r.body.meta.param).toBe(param)
    }
    expect((await s.call('GET', '/v1/events', {key: s.keys.testPk})).status).toBe(403)
  })

  it('gets an event by _id; 404 for unknown and other-environment ids', async () => {
    const r = await s.call('GET', `/v1/events/${ids[1]}`, {key: s.keys.testSk})
    expect(r.body).toMatchObject({meta: {code: 200}, event: {_id: ids[1], type: 'user.exited_geofence', duration: 4}})
    expect((await s.call('GET', '/v1/events/nope', {key: s.keys.testSk})).body).toEqual({meta: {code: 404, error: 'not_found', message: 'event not found'}})
    expect((await s.call('GET', `/v1/events/${ids[1]}`, {key: s.keys.liveSk})).status).toBe(404)
  })

  it('records a verification verdict', async () => {
    const r = await s.call('PUT', `/v1/events/${ids[3]}/verification`, {key: s.keys.testSk, body: {verification: 'accept', verifiedPlaceId: 'place-1'}})
    expect(r.status).toBe(200)
    expect(r.body.event).toMatchObject({_id: ids[3], verification: 'accept', verifiedPlace: {_id: 'place-1'}, verifiedAt: expect.any(String)})
    const reject = await s.call('PUT', `/v1/events/${ids[3]}/verification`, {key: s.keys.testSk, body: {verification: -1}})
    expect(reject.body.event.verification).toBe('reject')
    expect(reject.body.event.verifiedPlace).toBeUndefined()
    expect((await s.call('GET', `/v1/events/${ids[3]}`, {key: s.keys.testSk})).body.event.verification).toBe('reject')
  })

  it('refuses bad verifications and unknown events without changes', async () => {
    const before = await snapshot(s, 'events')
    const cases: Array<[unknown, string]> = [[{}, 'verification'], [{verification: 'maybe'}, 'verification'], [{verification: 'reject', verifiedPlaceId: 'p'}, 'verifiedPlaceId']]
    for (const [body, param] of cases) {
      const r = await s.call('PUT', `/v1/events/${ids[2]}/verification`, {key: s.keys.testSk, body})
      expect(r.status).toBe(400)
      expect(r.body.meta.param).toBe(param)
    }
    expect((await s.call('PUT', '/v1/events/nope/verification', {key: s.keys.testSk, body: {verification: 'accept'}})).status).toBe(404)
    expect((await s.call('PUT', `/v1/events/${ids[2]}/verification`, {key: s.keys.liveSk, body: {verification: 'accept'}})).status).toBe(404)
    expect((await s.call('DELETE', `/v1/events/${ids[2]}`, {key: s.keys.liveSk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/events/nope', {key: s.keys.testSk})).status).toBe(404)
    expect(await snapshot(s, 'events')).toEqual(before)
  })

  it('deletes an event', async () => {
    const r = await s.call('DELETE', `/v1/events/${ids[2]}`, {key: s.keys.testSk})
    expect(r.body).toEqual({meta: {code: 200}})
    expect((await s.call('GET', `/v1/events/${ids[2]}`, {key: s.keys.testSk})).status).toBe(404)
  })

  it('stores only the types of events.types for generated events', async () => {
    await setSetting(s.store, false, 'events.types', ['user.exited_geofence'])
    try {
      const rows = record(false, [{type: 'user.entered_geofence', body: {}}, {type: 'user.exited_geofence', body: {}}])
      expect(rows.map((r) => r.type)).toEqual(['user.exited_geofence'])
      const stored = s.store.sqlite.prepare("SELECT type FROM events WHERE type LIKE 'user.%geofence' AND payload = '{}'").pluck().all()
      expect(stored).toEqual(['user.exited_geofence'])
    } finally {
      await setSetting(s.store, false, 'events.types', [])
    }
  })
})

describe('GET /v1/events?userId= across a login', () => {
  // a device tracks logged out (its events carry its _id), logs in (the same user row, now with a
  // userId) and tracks on: the _id names both eras, the userId the logged-in one
  const track = (body: Record<string, unknown>) => s.call('POST', '/v1/track', {key: s.keys.testPk, body: {accuracy: 5, foreground: true, ...body}})
  const events = async (query: string) => {
    const r = await s.call('GET', `/v1/events?${query}`, {key: s.keys.testSk})
    expect(r.status).toBe(200)
    return {types: r.body.events.map((e: any) => `${e.type} ${e.geofence?.externalId}`), hasMore: r.body.meta.hasMore, events: r.body.events}
  }
  let walker = ''

  beforeAll(async () => {
    for (const [id, lng] of [['a', 7.4], ['b', 7.41]] as const) {
      await s.call('PUT', `/v1/geofences/walk/${id}`, {key: s.keys.testSk, body: {description: id, type: 'circle', coordinates: [lng, 43.7], radius: 100}})
    }
    walker = (await track({deviceId: 'walker', longitude: 7.4, latitude: 43.7, updatedAt: new Date(Date.now() - 60_000).toISOString()})).body.user._id
    await track({deviceId: 'stroller', longitude: 7.4, latitude: 43.7})
    await track({deviceId: 'walker', userId: 'walker-1', longitude: 7.41, latitude: 43.7})
    await track({deviceId: 'stroller', userId: 'stroller-1', longitude: 7.41, latitude: 43.7})
  })

  it('by _id: the events of both eras, newest first, in pages and by type', async () => {
    const all = await events(`userId=${walker}`)
    expect(all.types).toEqual(['user.entered_geofence b', 'user.exited_geofence a', 'user.entered_geofence a'])
    expect(new Set(all.events.map((e: any) => e.user._id))).toEqual(new Set([walker]))
    expect(all.hasMore).toBe(false)

    const first = await events(`userId=${walker}&limit=2`)
    expect(first.types).toEqual(all.types.slice(0, 2))
    expect(first.hasMore).toBe(true)
    const rest = await events(`userId=${walker}&limit=2&createdBefore=${first.events[1].createdAt}`)
    expect(rest.types).toEqual(all.types.slice(2))
    expect(rest.hasMore).toBe(false)
    expect((await events(`userId=${walker}&types=user.entered_geofence`)).types).toEqual(['user.entered_geofence b', 'user.entered_geofence a'])
  })

  it('by userId: the events since the login', async () => {
    expect((await events('userId=walker-1')).types).toEqual(['user.entered_geofence b', 'user.exited_geofence a'])
    expect((await events('userId=nobody')).types).toEqual([])
  })
})
