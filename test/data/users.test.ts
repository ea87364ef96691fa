import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {insertUser} from '../../src/users/store.js'
import type {UserRow} from '../../src/users/json.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {snapshot} from './helpers.js'
import {write} from '../../src/store/write.js'

let s: TestServer
const testUsers: UserRow[] = []
let liveUser: UserRow

beforeAll(async () => {
  s = await startTestServer()
  for (let i = 0; i < 5; i++) {
    testUsers.push(await insertUser(s.store, false, {user_id: `u${i}`, device_id: `d${i}`, lng: 7.42 + i / 1000, lat: 43.73, location_accuracy: 10}))
  }
  liveUser = await insertUser(s.store, true, {user_id: 'u0', device_id: 'live-device'})
})
afterAll(async () => {
  await s.stop()
})

describe('GET /v1/users', () => {
  it('lists newest updatedAt first with meta.hasMore', async () => {
    const r = await s.call('GET', '/v1/users', {key: s.keys.testSk})
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({code: 200, hasMore: false})
    expect(r.body.users.map((u: any) => u.userId)).toEqual(['u4', 'u3', 'u2', 'u1', 'u0'])
  })

  it('pages with limit and updatedBefore, each user exactly once', async () => {
    const seen: string[] = []
    let cursor = ''
    for (let page = 0; page < 5; page++) {
      const r = await s.call('GET', `/v1/users?limit=2${cursor}`, {key: s.keys.testSk})
      expect(r.status).toBe(200)
      seen.push(...r.body.users.map((u: any) => u._id))
      if (!r.body.meta.hasMore) break
      cursor = `&updatedBefore=${encodeURIComponent(r.body.users.at(-1).updatedAt)}`
    }
    expect(seen).toEqual(testUsers.map((u) => u.id).reverse())
  })

  it('filters by updatedAfter', async () => {
    const r = await s.call('GET', `/v1/users?updatedAfter=${encodeURIComponent(testUsers[2].updated_at)}`, {key: s.keys.testSk})
    expect(r.body.users.map((u: any) => u.userId)).toEqual(['u4', 'u3'])
  })

  it('bounds limit to 1..1000 and checks the cursors', async () => {
    for (const [query, param] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['limit=abc', 'limit'], ['updatedBefore=yesterday', 'updatedBefore'], ['updatedAfter=x', 'updatedAfter']]) {
      const r = await s.call('GET', `/v1/users?${query}`, {key: s.keys.testSk})
      expect(r.status, query).toBe(400)
      expect(r.body.meta.param).toBe(param)
      expect(r.body.meta.message).toMatch(new RegExp(`^${param}: `))
    }
    expect((await s.call('GET', '/v1/users?limit=1000', {key: s.keys.testSk})).status).toBe(200)
    const one = await s.call('GET', '/v1/users?limit=1', {key: s.keys.testSk})
    expect(one.body.users).toHaveLength(1)
    expect(one.body.meta.hasMore).toBe(true)
  })

  it('keeps test and live apart', async () => {
    const r = await s.call('GET', '/v1/users', {key: s.keys.liveSk})
    expect(r.body.users.map((u: any) => u._id)).toEqual([liveUser.id])
    expect(r.body.users[0].live).toBe(true)
  })

  it('needs a secret key', async () => {
    expect((await s.call('GET', '/v1/users', {key: s.keys.testPk})).status).toBe(403)
    expect((await s.call('GET', '/v1/users')).status).toBe(401)
  })
})

describe('GET /v1/users/:id', () => {
  it('finds a user by _id, userId and deviceId', async () => {
    for (const ref of [testUsers[1].id, 'u1', 'd1']) {
      const r = await s.call('GET', `/v1/users/${ref}`, {key: s.keys.testSk})
      expect(r.status, ref).toBe(200)
      expect(r.body.user._id).toBe(testUsers[1].id)
    }
  })

  it('returns the spec User resource', async () => {
    const u = await insertUser(s.store, false, {
      user_id: 'full', device_id: 'full-device', description: 'Driver', metadata: JSON.stringify({team: 'a'}), lng: 7.4, lat: 43.7,
      location_accuracy: 5, foreground: 1, stopped: 0, device_type: 'iOS',
      context: JSON.stringify({geofences: [{_id: 'g1', tag: 'store', externalId: '1', description: 'Store', metadata: {}}], trip: {externalId: 'o1', status: 'started'}}),
    })
    const r = await s.call('GET', '/v1/users/full', {key: s.keys.testSk})
    expect(r.body).toEqual({
      meta: {code: 200},
      user: {
        _id: u.id, live: false, userId: 'full', deviceId: 'full-device', description: 'Driver', metadata: {team: 'a'},
        location: {type: 'Point', coordinates: [7.4, 43.7]}, locationAccuracy: 5, foreground: true, stopped: false, deviceType: 'iOS',
        createdAt: u.created_at, updatedAt: u.updated_at,
        geofences: [{_id: 'g1', tag: 'store', externalId: '1', description: 'Store', metadata: {}}],
      },
    })
    expect(r.body.user._id).toMatch(/^[0-9a-zA-Z]{24}$/)
    write(s.store, (tx) => tx.run(s.store.db.deleteFrom('users').where('id', '=', u.id)))
  })

  it('carries its trip while the trip is started, approaching or arrived', async () => {
    const created = await s.call('POST', '/v1/trips', {key: s.keys.testPk, body: {externalId: 'user-trip', userId: 'u2', metadata: {a: 1}}})
    expect(created.status).toBe(200)
    expect((await s.call('GET', '/v1/users/u2', {key: s.keys.testSk})).body.user.trip).toBeUndefined()
    for (const status of ['started', 'approaching', 'arrived']) {
      await s.call('PATCH', '/v1/trips/user-trip/update', {key: s.keys.testPk, body: {status}})
      const r = await s.call('GET', '/v1/users/u2', {key: s.keys.testSk})
      expect(r.body.user.trip).toMatchObject({_id: created.body.trip._id, externalId: 'user-trip', status, metadata: {a: 1}})
    }
    const listed = await s.call('GET', '/v1/users', {key: s.keys.testSk})
    expect(listed.body.users.find((u: any) => u.userId === 'u2').trip.status).toBe('arrived')
    await s.call('PATCH', '/v1/trips/user-trip/update', {key: s.keys.testPk, body: {status: 'completed'}})
    expect((await s.call('GET', '/v1/users/u2', {key: s.keys.testSk})).body.user.trip).toBeUndefined()
  })

  it('answers 404 for unknown users and users of the other environment', async () => {
    const r = await s.call('GET', '/v1/users/nobody', {key: s.keys.testSk})
    expect(r.status).toBe(404)
    expect(r.body).toEqual({meta: {code: 404, error: 'not_found', message: 'user not found'}})
    expect((await s.call('GET', `/v1/users/${liveUser.id}`, {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('GET', '/v1/users/live-device', {key: s.keys.testSk})).status).toBe(404)
    const live = await s.call('GET', '/v1/users/u0', {key: s.keys.liveSk})
    expect(live.body.user._id).toBe(liveUser.id)
  })
})

describe('DELETE /v1/users/:id', () => {
  it('deletes by any reference and answers meta only', async () => {
    const u = await insertUser(s.store, false, {user_id: 'gone', device_id: 'gone-device'})
    const r = await s.call('DELETE', '/v1/users/gone-device', {key: s.keys.testSk})
    expect(r.status).toBe(200)
    expect(r.body).toEqual({meta: {code: 200}})
    expect(await s.store.db.selectFrom('users').where('id', '=', u.id).selectAll().executeTakeFirst()).toBeUndefined()
    expect((await s.call('GET', `/v1/users/${u.id}`, {key: s.keys.testSk})).status).toBe(404)
  })

  it('takes the user out of the geofences it was inside, and only that user', async () => {
    const fence = {description: 'Depot', type: 'circle', coordinates: [7.4, 43.7], radius: 200}
    expect((await s.call('PUT', '/v1/geofences/delete-test/depot', {key: s.keys.testSk, body: fence})).status).toBe(200)
    const at = {latitude: 43.7, longitude: 7.4, accuracy: 5, foreground: true}
    for (const deviceId of ['leaving', 'staying']) {
      const tracked = await s.call('POST', '/v1/track', {key: s.keys.testPk, body: {deviceId, ...at}})
      expect(tracked.body.events.map((e: {type: string}) => e.type)).toEqual(['user.entered_geofence'])
    }
    const inside = async () => (await s.call('GET', '/v1/geofences/delete-test/depot/users', {key: s.keys.testSk})).body.users.map((u: {deviceId: string}) => u.deviceId).sort()
    expect(await inside()).toEqual(['leaving', 'staying'])
    expect((await s.call('DELETE', '/v1/users/leaving', {key: s.keys.testSk})).status).toBe(200)
    expect(await inside()).toEqual(['staying'])
  })

  it('answers 404 and deletes nothing for unknown or other-environment users', async () => {
    const before = await snapshot(s, 'users')
    expect((await s.call('DELETE', '/v1/users/nobody', {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('DELETE', `/v1/users/${liveUser.id}`, {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/users/u1', {key: s.keys.testPk})).status).toBe(403)
    expect(await snapshot(s, 'users')).toEqual(before)
  })
})

describe('POST /v1/users/refresh', () => {
  it('reports every user in failed while push is not configured', async () => {
    const r = await s.call('POST', '/v1/users/refresh', {key: s.keys.testSk, body: {userIds: ['u1', 'nobody'], type: 'pushExtension'}})
    expect(r.status).toBe(200)
    expect(r.body).toEqual({
      meta: {code: 200},
      sent: [],
      failed: [{userId: 'u1', reason: 'push not configured'}, {userId: 'nobody', reason: 'user not found'}],
    })
  })

  it('accepts a form body with a comma list and defaults type', async () => {
    const r = await s.call('POST', '/v1/users/refresh', {
      key: s.keys.testSk, body: 'userIds=u2,u3', headers: {'content-type': 'application/x-www-form-urlencoded'},
    })
    expect(r.status).toBe(200)
    expect(r.body.failed.map((f: any) => f.userId)).toEqual(['u2', 'u3'])
  })

  it('checks userIds and type', async () => {
    const cases: Array<[unknown, string, RegExp]> = [
      [{}, 'userIds', /userIds: required/],
      [{userIds: []}, 'userIds', /at least 1/],
      [{userIds: Array.from({length: 11}, (_, i) => `u${i}`)}, 'userIds', /at most 10/],
      [{userIds: ['u1'], type: 'email'}, 'type', /silentPush, pushExtension/],
    ]
    for (const [body, param, message] of cases) {
      const r = await s.call('POST', '/v1/users/refresh', {key: s.keys.testSk, body})
      expect(r.status, JSON.stringify(body)).toBe(400)
      expect(r.body.meta.param).toBe(param)
      expect(r.body.meta.message).toMatch(message)
    }
    expect((await s.call('POST', '/v1/users/refresh', {key: s.keys.testPk, body: {userIds: ['u1']}})).status).toBe(403)
  })
})
