import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'
import {write} from '../../src/store/write.js'

let s: TestServer
let sk: string

beforeAll(async () => {
  s = await startTestServer()
  sk = s.keys.testSk
})
afterAll(async () => {
  await s.stop()
})

const circle = (extra: Record<string, unknown> = {}) => ({description: 'Store', type: 'circle', coordinates: [7.42, 43.73], radius: 100, ...extra})
const ring = [[7.41, 43.73], [7.42, 43.73], [7.42, 43.74], [7.41, 43.74], [7.41, 43.73]]
const polygon = (extra: Record<string, unknown> = {}) => ({description: 'Zone', type: 'polygon', coordinates: ring, ...extra})

const snapshot = () => s.store.sqlite.prepare('SELECT * FROM geofences ORDER BY id').all()

describe('PUT /v1/geofences/:tag/:externalId', () => {
  it('creates a circle with every optional field, in the spec shape', async () => {
    const r = await s.call('PUT', '/v1/geofences/store/full', {key: sk, body: circle({
      metadata: {color: 'red', floors: 2, open: true},
      userId: 'legacy-user', userIds: ['u1', 'u2'], ip: '10.0.0.*, 192.168.0.0/16,8.8.8.8',
      enabled: false, disableAfter: '2030-01-01T00:00:00Z', deleteAfter: '2030-02-01',
      stopDetection: true, tripApproachingThreshold: 7, dwellThreshold: 15,
      operatingHours: {monday: [['9:00 am', '5:30 PM']], SUN: [['10:00', '14:00']]},
    })})
    expect(r.status).toBe(200)
    expect(Object.keys(r.body)).toEqual(['meta', 'geofence'])
    expect(r.body.meta).toEqual({code: 200})
    const g = r.body.geofence
    expect(g._id).toMatch(/^[0-9a-zA-Z]{24}$/)
    expect(g).toMatchObject({
      live: false, tag: 'store', externalId: 'full', description: 'Store', type: 'circle',
      geometryCenter: {type: 'Point', coordinates: [7.42, 43.73]}, geometryRadius: 100,
      metadata: {color: 'red', floors: 2, open: true}, userId: 'legacy-user', userIds: 'u1,u2',
      ip: '10.0.0.*,192.168.0.0/16,8.8.8.8', enabled: false,
      disableAfter: '2030-01-01T00:00:00.000Z', deleteAfter: '2030-02-01T00:00:00.000Z',
      stopDetection: true, tripApproachingThreshold: 7, dwellThreshold: 15,
      operatingHours: {Mon: [['09:00', '17:30']], Sun: [['10:00', '14:00']]},
    })
    expect(g.geometry.type).toBe('Polygon')
    expect(g.geometry.coordinates[0]).toHaveLength(65)
    expect(g.createdAt).toBe(g.updatedAt)
    expect(new Date(g.createdAt).toISOString()).toBe(g.createdAt)
    const row = await s.store.db.selectFrom('geofences').selectAll().where('id', '=', g._id).executeTakeFirstOrThrow()
    expect(row.min_lat).toBeLessThan(43.73)
    expect(row.max_lat).toBeGreaterThan(43.73)
    expect(row.min_lng).toBeLessThan(7.42)
    expect(row.max_lng).toBeGreaterThan(7.42)
  })

  it('leaves unset optional fields out, answers metadata {} and defaults enabled to true', async () => {
    const r = await s.call('PUT', '/v1/geofences/store/min', {key: sk, body: circle()})
    expect(Object.keys(r.body.geofence).sort()).toEqual(
      ['_id', 'createdAt', 'updatedAt', 'live', 'tag', 'externalId', 'description', 'type', 'geometry', 'geometryCenter', 'geometryRadius', 'enabled', 'metadata'].sort(),
    )
    expect(r.body.geofence.enabled).toBe(true)
    expect(r.body.geofence.metadata).toEqual({})
  })

  it('updates in place: same _id and createdAt, later updatedAt, fields replaced', async () => {
    const a = await s.call('PUT', '/v1/geofences/store/upd', {key: sk, body: circle({metadata: {v: 1}})})
    const b = await s.call('PUT', '/v1/geofences/store/upd', {key: sk, body: polygon({description: 'Now a polygon'})})
    expect(b.status).toBe(200)
    expect(b.body.geofence._id).toBe(a.body.geofence._id)
    expect(b.body.geofence.createdAt).toBe(a.body.geofence.createdAt)
    expect(b.body.geofence.updatedAt > a.body.geofence.updatedAt).toBe(true)
    expect(b.body.geofence).toMatchObject({type: 'polygon', description: 'Now a polygon'})
    expect(b.body.geofence.metadata).toEqual({})
    const count = await s.store.db.selectFrom('geofences').select((eb) => eb.fn.countAll().as('n')).where('external_id', '=', 'upd').executeTakeFirst()
    expect(Number(count!.n)).toBe(1)
  })

  it('takes the tag and externalId from the path over the body', async () => {
    const r = await s.call('PUT', '/v1/geofences/path-tag/path-ext', {key: sk, body: circle({tag: 'body-tag', externalId: 'body-ext'})})
    expect(r.body.geofence).toMatchObject({tag: 'path-tag', externalId: 'path-ext'})
  })

  it('creates a polygon from an array or a JSON string, with centroid and approximate radius', async () => {
    for (const coordinates of [ring, JSON.stringify(ring)]) {
      const r = await s.call('PUT', '/v1/geofences/zone/a', {key: sk, body: polygon({coordinates, radius: 3})})
      expect(r.status).toBe(200)
      const g = r.body.geofence
      expect(g.geometry).toEqual({type: 'Polygon', coordinates: [ring]})
      expect(g.geometryCenter.coordinates[0]).toBeCloseTo(7.415, 6)
      expect(g.geometryCenter.coordinates[1]).toBeCloseTo(43.735, 6)
      expect(g.geometryRadius).toBeGreaterThan(680)
      expect(g.geometryRadius).toBeLessThan(690)
    }
  })

  it('accepts the bounds: radius 10 and 10,000, rings of 4 and 2,000 positions', async () => {
    for (const radius of [10, 10_000]) expect((await s.call('PUT', '/v1/geofences/b/r', {key: sk, body: circle({radius})})).status).toBe(200)
    const four = [[7.41, 43.73], [7.42, 43.73], [7.42, 43.74], [7.41, 43.73]]
    expect((await s.call('PUT', '/v1/geofences/b/p', {key: sk, body: polygon({coordinates: four})})).status).toBe(200)
    const many = Array.from({length: 1999}, (_, i) => {
      const a = (i / 1999) * 2 * Math.PI
      return [7.42 + 0.01 * Math.cos(a), 43.73 + 0.01 * Math.sin(a)]
    })
    const r = await s.call('PUT', '/v1/geofences/b/p', {key: sk, body: polygon({coordinates: [...many, many[0]]})})
    expect(r.status).toBe(200)
    expect(r.body.geofence.geometry.coordinates[0]).toHaveLength(2000)
  })

  it('accepts a form-encoded body (every value a string)', async () => {
    const form = new URLSearchParams({
      description: 'Form', type: 'circle', coordinates: '[7.42,43.73]', radius: '250', enabled: 'false',
      metadata: '{"a":"b","n":3}', stopDetection: 'true', dwellThreshold: '5', operatingHours: '{"fri":[["08:00","6:00 pm"]]}',
      userIds: 'x,y',
    }).toString()
    const r = await s.call('PUT', '/v1/geofences/form/1', {key: sk, body: form, headers: {'content-type': 'application/x-www-form-urlencoded'}})
    expect(r.status).toBe(200)
    expect(r.body.geofence).toMatchObject({
      geometryRadius: 250, enabled: false, metadata: {a: 'b', n: 3}, stopDetection: true, dwellThreshold: 5,
      operatingHours: {Fri: [['08:00', '18:00']]}, userIds: 'x,y',
    })
  })
})

describe('POST /v1/geofences', () => {
  it('creates with or without tag/externalId', async () => {
    const a = await s.call('POST', '/v1/geofences', {key: sk, body: circle()})
    expect(a.status).toBe(200)
    expect(a.body.geofence.tag).toBeUndefined()
    expect(a.body.geofence.externalId).toBeUndefined()
    const b = await s.call('POST', '/v1/geofences', {key: sk, body: circle({tag: 'post', externalId: 'one'})})
    expect(b.body.geofence).toMatchObject({tag: 'post', externalId: 'one'})
    const again = await s.call('POST', '/v1/geofences', {key: sk, body: circle()})
    expect(again.body.geofence._id).not.toBe(a.body.geofence._id)
  })

  it('answers 409 naming externalId when the tag and externalId exist, changing nothing', async () => {
    await s.call('POST', '/v1/geofences', {key: sk, body: circle({tag: 'post', externalId: 'dup'})})
    const before = snapshot()
    const r = await s.call('POST', '/v1/geofences', {key: sk, body: circle({tag: 'post', externalId: 'dup', description: 'other'})})
    expect(r.status).toBe(409)
    expect(r.body.meta).toMatchObject({code: 409, param: 'externalId'})
    expect(r.body.meta.message).toMatch(/^externalId: /)
    expect(snapshot()).toEqual(before)
  })
})

describe('shapes the engine cannot measure', () => {
  it('refuses circles across the antimeridian or reaching a pole, and polygons wider than 180°, changing nothing', async () => {
    const before = snapshot()
    for (const [body, message] of [
      [circle({coordinates: [179.9995, 0], radius: 200}), 'must not cross the antimeridian'],
      [circle({coordinates: [-179.9995, 10], radius: 200}), 'must not cross the antimeridian'],
      [circle({coordinates: [0, 89.9995], radius: 200}), 'must not reach a pole'],
      [circle({coordinates: [0, -89.9995], radius: 200}), 'must not reach a pole'],
      [polygon({coordinates: [[179.999, 0], [-179.999, 0], [-179.999, 0.001], [179.999, 0.001], [179.999, 0]]}), 'must span at most 180° of longitude'],
    ] as const) {
      const r = await s.call('POST', '/v1/geofences', {key: sk, body})
      expect(r.status, message).toBe(400)
      expect(r.body.meta).toMatchObject({code: 400, param: 'coordinates'})
      expect(r.body.meta.message).toContain(`coordinates: ${message}`)
    }
    expect(snapshot()).toEqual(before)
    // near, not at: a circle 1.1 km from the pole, one 50 m short of the antimeridian
    expect((await s.call('POST', '/v1/geofences', {key: sk, body: circle({coordinates: [0, 89.99], radius: 200})})).status).toBe(200)
    expect((await s.call('POST', '/v1/geofences', {key: sk, body: circle({coordinates: [179.997, 0], radius: 200})})).status).toBe(200)
  })
})

describe('PUT /v1/geofences/:id', () => {
  it('updates by _id, including tag and externalId', async () => {
    const a = await s.call('POST', '/v1/geofences', {key: sk, body: circle({tag: 'byid', externalId: 'x'})})
    const r = await s.call('PUT', `/v1/geofences/${a.body.geofence._id}`, {key: sk, body: circle({tag: 'byid', externalId: 'y', radius: 300})})
    expect(r.status).toBe(200)
    expect(r.body.geofence).toMatchObject({_id: a.body.geofence._id, externalId: 'y', geometryRadius: 300, createdAt: a.body.geofence.createdAt})
  })

  it('answers 404 for an unknown _id and 409 when the new tag+externalId belongs to another geofence', async () => {
    const before = snapshot()
    const missing = await s.call('PUT', '/v1/geofences/000000000000000000000000', {key: sk, body: circle()})
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({meta: {code: 404, error: 'not_found', message: 'geofence not found'}})
    expect(snapshot()).toEqual(before)
    await s.call('PUT', '/v1/geofences/taken/one', {key: sk, body: circle()})
    const other = await s.call('PUT', '/v1/geofences/taken/two', {key: sk, body: circle()})
    const snap = snapshot()
    const r = await s.call('PUT', `/v1/geofences/${other.body.geofence._id}`, {key: sk, body: circle({tag: 'taken', externalId: 'one'})})
    expect(r.status).toBe(409)
    expect(r.body.meta.param).toBe('externalId')
    expect(snapshot()).toEqual(snap)
  })
})

describe('GET and DELETE one geofence', () => {
  it('gets by _id and by tag/externalId', async () => {
    const created = (await s.call('PUT', '/v1/geofences/get/me', {key: sk, body: circle()})).body.geofence
    const byId = await s.call('GET', `/v1/geofences/${created._id}`, {key: sk})
    const byKey = await s.call('GET', '/v1/geofences/get/me', {key: sk})
    expect(byId.status).toBe(200)
    expect(byId.body).toEqual({meta: {code: 200}, geofence: created})
    expect(byKey.body).toEqual(byId.body)
  })

  it('deletes by _id and by tag/externalId, answering meta only; then 404', async () => {
    const a = (await s.call('PUT', '/v1/geofences/del/a', {key: sk, body: circle()})).body.geofence
    await s.call('PUT', '/v1/geofences/del/b', {key: sk, body: circle()})
    const r1 = await s.call('DELETE', `/v1/geofences/${a._id}`, {key: sk})
    expect(r1.status).toBe(200)
    expect(r1.body).toEqual({meta: {code: 200}})
    expect((await s.call('DELETE', '/v1/geofences/del/b', {key: sk})).body).toEqual({meta: {code: 200}})
    for (const path of [`/v1/geofences/${a._id}`, '/v1/geofences/del/b']) {
      expect((await s.call('GET', path, {key: sk})).status).toBe(404)
      const again = await s.call('DELETE', path, {key: sk})
      expect(again.status).toBe(404)
      expect(again.body).toEqual({meta: {code: 404, error: 'not_found', message: 'geofence not found'}})
    }
  })
})

describe('GET /v1/geofences/:tag/:externalId/users', () => {
  it('lists the users inside now, newest first, with hasMore and the User shape', async () => {
    const g = (await s.call('PUT', '/v1/geofences/inside/store', {key: sk, body: circle()})).body.geofence
    const other = (await s.call('PUT', '/v1/geofences/inside/other', {key: sk, body: circle()})).body.geofence
    const user = (id: string, updatedAt: string, inside: string[]) => ({
      id, live: 0, user_id: `user-${id}`, device_id: `device-${id}`, install_id: null, description: null, metadata: '{"tier":"gold"}',
      lng: 7.42, lat: 43.73, location_accuracy: 10, foreground: 1, stopped: 0, device_type: 'iOS', device_os: null,
      device_make: null, device_model: null, ip: null, context: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: updatedAt,
      presence: JSON.stringify(inside.map((gid) => [gid, '2026-01-01T00:00:00.000Z', 0, 3])),
    })
    write(s.store, (tx) => tx.run(s.store.db.insertInto('users').values([
      user('u00000000000000000000001', '2026-01-01T00:00:01.000Z', [other._id, g._id]),
      user('u00000000000000000000002', '2026-01-01T00:00:02.000Z', [g._id]),
      user('u00000000000000000000003', '2026-01-01T00:00:03.000Z', [other._id]),
    ])))

    const all = await s.call('GET', '/v1/geofences/inside/store/users', {key: sk})
    expect(all.status).toBe(200)
    expect(all.body.meta).toEqual({code: 200, hasMore: false})
    expect(all.body.users.map((u: {_id: string}) => u._id)).toEqual(['u00000000000000000000002', 'u00000000000000000000001'])
    expect(all.body.users[0]).toMatchObject({
      _id: 'u00000000000000000000002', live: false, userId: 'user-u00000000000000000000002', deviceId: 'device-u00000000000000000000002',
      metadata: {tier: 'gold'}, location: {type: 'Point', coordinates: [7.42, 43.73]}, locationAccuracy: 10,
      foreground: true, stopped: false, deviceType: 'iOS', updatedAt: '2026-01-01T00:00:02.000Z',
    })
    const first = await s.call('GET', '/v1/geofences/inside/store/users?limit=1', {key: sk})
    expect(first.body.meta.hasMore).toBe(true)
    expect(first.body.users).toHaveLength(1)
    const next = await s.call('GET', `/v1/geofences/inside/store/users?limit=1&updatedBefore=${first.body.users[0].updatedAt}`, {key: sk})
    expect(next.body.users[0]._id).toBe('u00000000000000000000001')
    expect(next.body.meta.hasMore).toBe(false)
    const none = await s.call('GET', '/v1/geofences/inside/store/users', {key: s.keys.liveSk})
    expect(none.status).toBe(404)
  })

  it('lists users inside a geofence among thousands of others, in order, across pages', async () => {
    const sk = s.keys.testSk
    const crowd = (await s.call('PUT', '/v1/geofences/crowd/one', {key: sk, body: circle()})).body.geofence
    const id = (i: number) => `c${String(i).padStart(23, '0')}`
    // 1600 and 600 end the scan's windows of 1,000 users (geofences/store.ts)
    write(s.store, (tx) => {
      for (let i = 0; i < 2600; i++) {
        tx.run(s.store.db.insertInto('users').values({
          id: id(i), live: 0, device_id: `crowd-${i}`, foreground: 0, stopped: 0,
          created_at: '2026-02-01T00:00:00.000Z', updated_at: new Date(Date.parse('2026-02-01T00:00:00Z') + i * 1000).toISOString(),
          presence: i % 500 === 7 || i === 1600 || i === 600 ? JSON.stringify([['elsewhere', '2026-02-01T00:00:00.000Z', 0, 3], [crowd._id, '2026-02-01T00:00:00.000Z', 0, 3]]) : null,
        }))
      }
    })
    const list = async (query: string) => (await s.call('GET', `/v1/geofences/crowd/one/users${query}`, {key: sk})).body
    expect((await list('')).users.map((u: {_id: string}) => u._id)).toEqual([2507, 2007, 1600, 1507, 1007, 600, 507, 7].map(id))
    const first = await list('?limit=4')
    expect(first.users.map((u: {_id: string}) => u._id)).toEqual([2507, 2007, 1600, 1507].map(id))
    expect(first.meta.hasMore).toBe(true)
    const rest = await list(`?limit=4&updatedBefore=${first.users[3].updatedAt}`)
    expect(rest.users.map((u: {_id: string}) => u._id)).toEqual([1007, 600, 507, 7].map(id))
    expect(rest.meta.hasMore).toBe(false)
  })

  it('shows each user as /v1/users does, with its trip while started, approaching or arrived', async () => {
    const pk = s.keys.testPk
    await s.call('PUT', '/v1/geofences/inside/tripped', {key: sk, body: circle({coordinates: [7.4276, 43.7396], radius: 100})})
    await s.call('PUT', '/v1/geofences/dest/far', {key: sk, body: circle({coordinates: [7.4200, 43.7330], radius: 30})})
    const trip = await s.call('POST', '/v1/trips', {key: pk, body: {externalId: 'inside-trip', userId: 'tripper', destinationGeofenceTag: 'dest', destinationGeofenceExternalId: 'far', mode: 'foot'}})
    expect(trip.status).toBe(200)
    const track = await s.call('POST', '/v1/track', {key: pk, body: {deviceId: 'tripper-device', userId: 'tripper', latitude: 43.7396, longitude: 7.4276, accuracy: 5}})
    expect(track.body.user.trip.externalId).toBe('inside-trip')
    const listed = (await s.call('GET', '/v1/geofences/inside/tripped/users', {key: sk})).body.users
    const user = (await s.call('GET', '/v1/users/tripper', {key: sk})).body.user
    expect(listed).toEqual([user])
    expect(listed[0].trip).toMatchObject({externalId: 'inside-trip', status: user.trip.status})
  })

  it('answers 404 for an unknown geofence and 400 for a bad limit', async () => {
    expect((await s.call('GET', '/v1/geofences/no/such/users', {key: sk})).status).toBe(404)
    await s.call('PUT', '/v1/geofences/inside/empty', {key: sk, body: circle()})
    const r = await s.call('GET', '/v1/geofences/inside/empty/users?limit=0', {key: sk})
    expect(r.status).toBe(400)
    expect(r.body.meta.param).toBe('limit')
    expect((await s.call('GET', '/v1/geofences/inside/empty/users', {key: sk})).body).toEqual({meta: {code: 200, hasMore: false}, users: []})
  })
})

describe('bad input: 400 with the param, nothing changed', () => {
  const cases: Array<[string, Record<string, unknown> | string, string, RegExp?]> = [  // name, body, param, message
    ['description missing', {type: 'circle', coordinates: [7.42, 43.73], radius: 100}, 'description', /^description: required$/],
    ['description empty', circle({description: '  '}), 'description'],
    ['type missing', {description: 'x', coordinates: [7.42, 43.73], radius: 100}, 'type', /^type: required$/],
    ['type unknown', circle({type: 'square'}), 'type', /^type: must be one of circle, polygon, isochrone$/],
    ['no coordinates, address or placeId', {description: 'x', type: 'circle', radius: 100}, 'coordinates'],
    ['coordinates not a position', circle({coordinates: [7.42]}), 'coordinates'],
    ['coordinates latitude out of range', circle({coordinates: [7.42, 93]}), 'coordinates', /latitude -90 to 90/],
    ['coordinates a lat,lng string', circle({coordinates: '43.73,7.42'}), 'coordinates'],
    ['radius missing', circle({radius: undefined}), 'radius', /^radius: required/],
    ['radius below 10', circle({radius: 9.99}), 'radius', /^radius: range 10 to 10000/],
    ['radius above 10,000', circle({radius: 10_001}), 'radius', /^radius: range 10 to 10000/],
    ['radius not a number', circle({radius: 'wide'}), 'radius', /^radius: must be a number$/],
    ['polygon of 3 positions', polygon({coordinates: [[7.41, 43.73], [7.42, 43.73], [7.41, 43.73]]}), 'coordinates', /4 to 2,000/],
    ['polygon not closed', polygon({coordinates: ring.slice(0, 4)}), 'coordinates', /last position must equal the first/],
    ['polygon of 2,001 positions', polygon({coordinates: [...Array.from({length: 2000}, (_, i) => [7 + i / 1e5, 43 + (i % 2) / 1e4]), [7, 43]]}), 'coordinates', /4 to 2,000/],
    ['polygon as a broken JSON string', polygon({coordinates: '[[7.41,43.73],'}), 'coordinates'],
    ['polygon with only an address', {description: 'x', type: 'polygon', address: '1 Main St'}, 'coordinates'],
    ['address without coordinates (no map imported)', {description: 'x', type: 'circle', radius: 100, address: '1 Main St'}, 'address', /no geocoder is loaded/],
    ['placeId (no map imported)', circle({placeId: 'abc'}), 'placeId', /no places index is loaded/],
    ['isochrone without mode', {description: 'x', type: 'isochrone', coordinates: [7.42, 43.73], radius: 10}, 'mode'],
    ['isochrone with an unknown mode', {description: 'x', type: 'isochrone', coordinates: [7.42, 43.73], radius: 10, mode: 'rocket'}, 'mode'],
    ['isochrone minutes out of range', {description: 'x', type: 'isochrone', coordinates: [7.42, 43.73], radius: 90, mode: 'car'}, 'radius'],
    ['isochrone (no road graph covers the point)', {description: 'x', type: 'isochrone', coordinates: [7.42, 43.73], radius: 10, mode: 'car'}, 'coordinates', /no road graph/],
    ['metadata with 17 keys', circle({metadata: Object.fromEntries(Array.from({length: 17}, (_, i) => [`k${i}`, i]))}), 'metadata', /^metadata: up to 16 keys$/],
    ['metadata with an object value', circle({metadata: {nested: {a: 1}}}), 'metadata.nested'],
    ['metadata not a dictionary', circle({metadata: 'red'}), 'metadata'],
    ['operatingHours with an unknown day', circle({operatingHours: {funday: [['09:00', '17:00']]}}), 'operatingHours.funday'],
    ['operatingHours with a bad time', circle({operatingHours: {mon: [['09:00', '17:00'], ['9 am', '5 pm']]}}), 'operatingHours.mon.1'],
    ['operatingHours not a dictionary', circle({operatingHours: [['09:00', '17:00']]}), 'operatingHours'],
    ['ip not an address', circle({ip: '10.0.0.1,not-an-ip'}), 'ip'],
    ['ip with a wildcard outside the last octet', circle({ip: '10.0.*.1'}), 'ip'],
    ['ip with a CIDR prefix over 32', circle({ip: '10.0.0.0/33'}), 'ip'],
    ['enabled not a boolean', circle({enabled: 'maybe'}), 'enabled', /^enabled: must be a boolean$/],
    ['stopDetection not a boolean', circle({stopDetection: 2}), 'stopDetection'],
    ['disableAfter not a date', circle({disableAfter: 'soon'}), 'disableAfter'],
    ['deleteAfter not a date', circle({deleteAfter: 'later'}), 'deleteAfter'],
    ['dwellThreshold negative', circle({dwellThreshold: -1}), 'dwellThreshold', /^dwellThreshold: must be greater than 0$/],
    ['tripApproachingThreshold not a number', circle({tripApproachingThreshold: 'x'}), 'tripApproachingThreshold'],
    ['userIds not a list', circle({userIds: {a: 1}}), 'userIds'],
    ['userId not a string', circle({userId: {a: 1}}), 'userId'],
    ['malformed JSON', '{"description": ', 'body', /^body: /],
  ]

  it.each(cases.map(([name, body, param, message]) => ({name, body, param, message})))('$name → $param', async ({body, param, message}) => {
    const before = snapshot()
    for (const [method, path] of [['PUT', '/v1/geofences/bad/one'], ['POST', '/v1/geofences']]) {
      const r = await s.call(method, path, {key: sk, body})
      expect(r.status, `${method} ${path}`).toBe(400)
      expect(r.body.meta.code).toBe(400)
      expect(r.body.meta.param).toBe(param)
      expect(r.body.meta.message.startsWith(`${param}: `)).toBe(true)
      if (message) expect(r.body.meta.message).toMatch(message)
    }
    expect(snapshot()).toEqual(before)
  })

  it('refuses a bad body on PUT /:id without touching the geofence', async () => {
    const g = (await s.call('PUT', '/v1/geofences/bad/target', {key: sk, body: circle()})).body.geofence
    const before = snapshot()
    const r = await s.call('PUT', `/v1/geofences/${g._id}`, {key: sk, body: circle({radius: 5})})
    expect(r.status).toBe(400)
    expect(r.body.meta.param).toBe('radius')
    expect(snapshot()).toEqual(before)
  })
})

describe('keys', () => {
  it('needs a secret key on every geofence endpoint', async () => {
    for (const [method, path] of [['GET', '/v1/geofences'], ['POST', '/v1/geofences'], ['PUT', '/v1/geofences/a/b'], ['GET', '/v1/geofences/a/b'],
      ['DELETE', '/v1/geofences/a/b'], ['GET', '/v1/geofences/a/b/users'], ['PUT', '/v1/geofences/x'], ['GET', '/v1/geofences/x'], ['DELETE', '/v1/geofences/x']]) {
      expect((await s.call(method, path, {key: s.keys.testPk, body: method === 'GET' || method === 'DELETE' ? undefined : circle()})).status, `${method} ${path}`).toBe(403)
      expect((await s.call(method, path)).status).toBe(401)
    }
  })
})
