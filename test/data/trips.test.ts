import polyline from '@mapbox/polyline'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {setSetting} from '../../src/project/settings.js'
import {newId, nowIso} from '../../src/store/ids.js'
import {expireTrips} from '../../src/trips/expiry.js'
import {addTripLocation} from '../../src/trips/write.js'
import {insertUser} from '../../src/users/store.js'
import type {UserRow} from '../../src/users/json.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {snapshot} from './helpers.js'
import {write} from '../../src/store/write.js'

let s: TestServer
let driver: UserRow

/** A geofence row as the geofences API would store it; only the center matters to trips. */
async function geofence(live: boolean, tag: string, externalId: string, center: [number, number]) {
  const now = nowIso()
  write(s.store, (tx) => tx.run(s.store.db.insertInto('geofences').values({
    id: newId(), live: live ? 1 : 0, tag, external_id: externalId, description: externalId, type: 'circle',
    geometry: '{}', center_lng: center[0], center_lat: center[1], radius: 100, mode: null, metadata: null, user_id: null,
    user_ids: null, ip: null, trip_approaching_threshold: null, dwell_threshold: null, enabled: 1, stop_detection: null,
    operating_hours: null, disable_after: null, delete_after: null,
    min_lng: center[0], min_lat: center[1], max_lng: center[0], max_lat: center[1], created_at: now, updated_at: now,
  })))
}

beforeAll(async () => {
  s = await startTestServer()
  driver = await insertUser(s.store, false, {user_id: 'driver', device_id: 'driver-phone'})
  await geofence(false, 'store', 's1', [7.4246, 43.7384])
  await geofence(false, 'store', 's2', [7.4167, 43.7311])
  await geofence(true, 'store', 'live-only', [7.41, 43.72])
})
afterAll(async () => {
  await s.stop()
})

const create = (body: unknown, key = s.keys.testPk) => s.call('POST', '/v1/trips', {key, body})
const update = (ref: string, body: unknown, key = s.keys.testPk) => s.call('PATCH', `/v1/trips/${ref}/update`, {key, body})
const tables = () => snapshot(s, 'trips', 'trip_locations', 'events')

describe('POST /v1/trips', () => {
  it('creates a pending trip with every field, its destination from the geofence center', async () => {
    const r = await create({
      externalId: 'order-1', userId: 'driver', destinationGeofenceTag: 'store', destinationGeofenceExternalId: 's1', mode: 'bike',
      approachingThreshold: 3, scheduledArrivalAt: '2026-12-01T12:00:00Z', metadata: {customer: 'Ann', items: 3, paid: true},
    })
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({code: 200})
    expect(r.body.trip).toEqual({
      _id: expect.stringMatching(/^[0-9a-zA-Z]{24}$/), live: false, externalId: 'order-1', metadata: {customer: 'Ann', items: 3, paid: true}, mode: 'bike',
      destinationGeofenceTag: 'store', destinationGeofenceExternalId: 's1', destinationLocation: {type: 'Point', coordinates: [7.4246, 43.7384]},
      approachingThreshold: 3, scheduledArrivalAt: '2026-12-01T12:00:00.000Z', user: {_id: driver.id, userId: 'driver', deviceId: 'driver-phone'},
      createdAt: expect.any(String), updatedAt: r.body.trip.createdAt, status: 'pending', userId: 'driver',
      delay: {delayed: false, scheduledArrivalTimeDelay: 0}, locations: [],
    })
  })

  it('defaults mode to car, accepts userId null, no destination, a form body and a numeric externalId', async () => {
    const r = await create({externalId: 'order-2', userId: null})
    expect(r.body.trip).toMatchObject({externalId: 'order-2', mode: 'car', status: 'pending', userId: null, metadata: {}, locations: []})
    expect(r.body.trip.destinationLocation).toBeUndefined()
    const form = await s.call('POST', '/v1/trips', {key: s.keys.testPk, body: 'externalId=order-3&mode=foot&approachingThreshold=2', headers: {'content-type': 'application/x-www-form-urlencoded'}})
    expect(form.body.trip).toMatchObject({externalId: 'order-3', mode: 'foot', approachingThreshold: 2})
    const numeric = await create({externalId: 12345})
    expect(numeric.body.trip.externalId).toBe('12345')
  })

  it('answers 409 while a trip with the externalId is open, and allows it once that trip ended', async () => {
    const before = await tables()
    const r = await create({externalId: 'order-1'})
    expect(r.status).toBe(409)
    expect(r.body.meta).toMatchObject({code: 409, error: 'conflict', param: 'externalId'})
    expect(await tables()).toEqual(before)
    // the same externalId is free in the other environment
    expect((await create({externalId: 'order-1'}, s.keys.livePk)).status).toBe(200)
  })

  it('refuses every invalid field with its param and stores nothing', async () => {
    const before = await tables()
    const cases: Array<[Record<string, unknown>, string]> = [
      [{}, 'externalId'],
      [{externalId: ''}, 'externalId'],
      [{externalId: 'x', mode: 'plane'}, 'mode'],
      [{externalId: 'x', approachingThreshold: 0}, 'approachingThreshold'],
      [{externalId: 'x', approachingThreshold: 'soon'}, 'approachingThreshold'],
      [{externalId: 'x', scheduledArrivalAt: 'tomorrow'}, 'scheduledArrivalAt'],
      [{externalId: 'x', metadata: 'nope'}, 'metadata'],
      [{externalId: 'x', metadata: Object.fromEntries(Array.from({length: 33}, (_, i) => [`k${i}`, i]))}, 'metadata'],
      [{externalId: 'x', metadata: {note: 'a'.repeat(1025)}}, 'metadata.note'],
      [{externalId: 'x', metadata: {nested: {a: 1}}}, 'metadata.nested'],
      [{externalId: 'x', destinationGeofenceTag: 'store'}, 'destinationGeofenceExternalId'],
      [{externalId: 'x', destinationGeofenceExternalId: 's1'}, 'destinationGeofenceTag'],
      [{externalId: 'x', destinationGeofenceTag: 'store', destinationGeofenceExternalId: 'missing'}, 'destinationGeofenceExternalId'],
      [{externalId: 'x', destinationGeofenceTag: 'store', destinationGeofenceExternalId: 'live-only'}, 'destinationGeofenceExternalId'],
    ]
    for (const [body, param] of cases) {
      const r = await create(body)
      expect(r.status, JSON.stringify(body).slice(0, 80)).toBe(400)
      expect(r.body.meta.param).toBe(param)
      expect(r.body.meta.message.startsWith(`${param}: `)).toBe(true)
    }
    const ok = await create({externalId: 'bounds', metadata: {...Object.fromEntries(Array.from({length: 31}, (_, i) => [`k${i}`, i])), note: 'a'.repeat(1024)}})
    expect(ok.status).toBe(200)
    await s.call('DELETE', `/v1/trips/${ok.body.trip._id}`, {key: s.keys.testSk})
    expect(await tables()).toEqual(before)
  })
})

describe('PATCH /v1/trips/:id/update', () => {
  it('without status keeps the status and updates the fields (compat), by externalId', async () => {
    const r = await update('order-2', {mode: 'foot', destinationGeofenceTag: 'store', destinationGeofenceExternalId: 's2', metadata: {gate: 4}, approachingThreshold: 7, scheduledArrivalAt: '2026-12-02T10:00:00Z'})
    expect(r.status).toBe(200)
    expect(r.body.trip).toMatchObject({
      externalId: 'order-2', status: 'pending', mode: 'foot', metadata: {gate: 4}, approachingThreshold: 7,
      destinationGeofenceExternalId: 's2', destinationLocation: {type: 'Point', coordinates: [7.4167, 43.7311]},
      scheduledArrivalAt: '2026-12-02T10:00:00.000Z', locations: [],
    })
    expect(r.body.trip.updatedAt > r.body.trip.createdAt).toBe(true)
  })

  it('moves the status by _id, stamps arrivedAt and completedAt/endedAt, and gives events for a trip with a user', async () => {
    const trip = (await s.call('GET', '/v1/trips/order-1', {key: s.keys.testSk})).body.trip
    const started = await update(trip._id, {status: 'started'})
    expect(started.body.trip.status).toBe('started')
    expect((await create({externalId: 'order-1'})).status).toBe(409)
    const arrived = await update(trip._id, {status: 'arrived'})
    expect((await create({externalId: 'order-1'})).status).toBe(409)
    expect(arrived.body.trip.arrivedAt).toEqual(expect.any(String))
    const done = await update(trip._id, {status: 'completed'})
    expect(done.body.trip).toMatchObject({status: 'completed', completedAt: expect.any(String), endedAt: expect.any(String)})
    expect(done.body.trip.completedAt).toBe(done.body.trip.endedAt)

    const events = await s.call('GET', `/v1/events?userId=driver`, {key: s.keys.testSk})
    expect(events.body.events.map((e: any) => e.type)).toEqual(['user.stopped_trip', 'user.arrived_at_trip_destination', 'user.started_trip'])
    expect(events.body.events[0]).toMatchObject({user: {_id: driver.id}, trip: {_id: trip._id, status: 'completed'}})

    // ended: the externalId is free again, and lookups by externalId pick the newest trip
    const again = await create({externalId: 'order-1', userId: 'driver'})
    expect(again.status).toBe(200)
    expect((await s.call('GET', '/v1/trips/order-1', {key: s.keys.testSk})).body.trip._id).toBe(again.body.trip._id)
    expect((await s.call('GET', `/v1/trips/${trip._id}`, {key: s.keys.testSk})).body.trip.status).toBe('completed')
  })

  it('a move back to pending, started or approaching clears arrivedAt (it has not arrived any more); arriving again stamps it anew, ending keeps it', async () => {
    expect((await create({externalId: 'back-and-forth'})).status).toBe(200)
    const steps: Array<[string, string | null]> = []
    for (const status of ['arrived', 'started', 'arrived', 'completed', 'approaching', 'arrived', 'arrived', 'pending', 'canceled']) {
      const trip = (await update('back-and-forth', {status})).body.trip
      steps.push([status, trip.arrivedAt ?? null])
    }
    const stamps = steps.map(([, at]) => at)
    expect(steps).toEqual([
      ['arrived', stamps[0]], ['started', null], ['arrived', stamps[2]], ['completed', stamps[2]],
      ['approaching', null], ['arrived', stamps[5]], ['arrived', stamps[5]], ['pending', null], ['canceled', null],
    ])
    expect([typeof stamps[0], stamps[0]! < stamps[2]!, stamps[2]! < stamps[5]!]).toEqual(['string', true, true])
  })

  it('starting a trip cancels the user\'s other active trip', async () => {
    const a = await create({externalId: 'first', userId: 'driver'})
    await update('first', {status: 'started'})
    await create({externalId: 'second', userId: 'driver'})
    await update('second', {status: 'started'})
    const first = await s.call('GET', `/v1/trips/${a.body.trip._id}`, {key: s.keys.testSk})
    expect(first.body.trip).toMatchObject({status: 'canceled', endedAt: expect.any(String)})
    const canceled = await update('second', {status: 'canceled'})
    expect(canceled.body.trip.status).toBe('canceled')
  })

  it('refuses expired and unknown statuses, unknown trips and other environments; nothing changes', async () => {
    const before = await tables()
    const expired = await update('order-2', {status: 'expired'})
    expect(expired.status).toBe(400)
    expect(expired.body.meta).toEqual({code: 400, error: 'invalid_parameter', param: 'status', message: 'status: must be one of pending, started, approaching, arrived, completed, canceled'})
    for (const [body, param] of [[{status: 'flying'}, 'status'], [{mode: 'jet'}, 'mode'], [{destinationGeofenceExternalId: 'missing'}, 'destinationGeofenceExternalId'], [{metadata: {a: 'b'.repeat(1025)}}, 'metadata.a']] as const) {
      const r = await update('order-2', body)
      expect(r.status).toBe(400)
      expect(r.body.meta.param).toBe(param)
    }
    const missing = await update('no-such-trip', {status: 'started'})
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({meta: {code: 404, error: 'not_found', message: 'trip not found'}})
    expect((await update('order-2', {status: 'started'}, s.keys.livePk)).status).toBe(404)
    expect(await tables()).toEqual(before)
  })
})

describe('GET /v1/trips/:id, /route and DELETE', () => {
  it('returns the trip with its locations and the travelled route as polyline6', async () => {
    const trip = (await create({externalId: 'tracked', userId: 'driver'})).body.trip
    const points: Array<[number, number]> = [[7.42, 43.73], [7.421, 43.73], [7.421, 43.731]]
    for (const [i, [lng, lat]] of points.entries()) write(s.store, (tx) => addTripLocation(tx, trip._id, lng, lat, `2026-05-01T10:0${i}:00.000Z`))
    const r = await s.call('GET', `/v1/trips/${trip._id}`, {key: s.keys.testSk})
    expect(r.body.trip.locations).toEqual(points.map(([lng, lat], i) => ({type: 'Point', coordinates: [lng, lat], updatedAt: `2026-05-01T10:0${i}:00.000Z`})))

    const route = await s.call('GET', '/v1/trips/tracked/route?units=metric', {key: s.keys.testSk})
    expect(route.status).toBe(200)
    expect(Object.keys(route.body).sort()).toEqual(['distance', 'geometry', 'meta'])
    expect(route.body.distance.value).toBeCloseTo(80.6 + 111.2, 0)
    expect(route.body.distance.text).toBe('192 m')
    expect(polyline.decode(route.body.geometry.polyline, 6)).toEqual(points.map(([lng, lat]) => [lat, lng]))
    const imperial = await s.call('GET', '/v1/trips/tracked/route', {key: s.keys.testSk})
    expect(imperial.body.distance.text).toBe('0.1 mi')
    expect((await s.call('GET', '/v1/trips/tracked/route?units=nautical', {key: s.keys.testSk})).body.meta.param).toBe('units')
    const empty = await s.call('GET', '/v1/trips/order-2/route', {key: s.keys.testSk})
    expect(empty.body).toEqual({meta: {code: 200}, distance: {value: 0, text: '0 ft'}, geometry: {polyline: ''}})
  })

  it('answers 404 for unknown trips and other environments; needs a secret key', async () => {
    expect((await s.call('GET', '/v1/trips/none', {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('GET', '/v1/trips/none/route', {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('GET', '/v1/trips/order-2', {key: s.keys.liveSk})).status).toBe(404)
    expect((await s.call('GET', '/v1/trips/order-2', {key: s.keys.testPk})).status).toBe(403)
  })

  it('deletes a trip with its locations', async () => {
    const before = await tables()
    expect((await s.call('DELETE', '/v1/trips/tracked', {key: s.keys.liveSk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/trips/none', {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/trips/tracked', {key: s.keys.testPk})).status).toBe(403)
    expect(await tables()).toEqual(before)
    const trip = (await s.call('GET', '/v1/trips/tracked', {key: s.keys.testSk})).body.trip
    expect((await s.call('DELETE', '/v1/trips/tracked', {key: s.keys.testSk})).body).toEqual({meta: {code: 200}})
    expect(await s.store.db.selectFrom('trip_locations').where('trip_id', '=', trip._id).selectAll().execute()).toEqual([])
    expect((await s.call('GET', `/v1/trips/${trip._id}`, {key: s.keys.testSk})).status).toBe(404)
  })
})

describe('GET /v1/trips', () => {
  let t: Record<string, any> = {}
  beforeAll(async () => {
    const server = await startTestServer()
    // a fresh server so the list holds exactly these trips
    await s.stop()
    s = server
    driver = await insertUser(s.store, false, {user_id: 'driver', device_id: 'driver-phone'})
    await geofence(false, 'store', 's1', [7.4246, 43.7384])
    await geofence(false, 'depot', 'd1', [7.41, 43.73])
    t.a = (await create({externalId: 'a', userId: 'driver', destinationGeofenceTag: 'store', destinationGeofenceExternalId: 's1'})).body.trip
    t.b = (await create({externalId: 'b', destinationGeofenceTag: 'depot', destinationGeofenceExternalId: 'd1'})).body.trip
    t.c = (await create({externalId: 'c', userId: 'someone'})).body.trip
    await update('c', {status: 'completed'})
    await update('a', {status: 'started'})
    write(s.store, (tx) => tx.run(s.store.db.updateTable('trips').set({delayed: 1}).where('id', '=', t.b._id)))
    write(s.store, (tx) => addTripLocation(tx, t.a._id, 7.42, 43.73, nowIso()))
    await create({externalId: 'live', userId: 'driver'}, s.keys.livePk)
  })

  const ids = async (query: string) => {
    const r = await s.call('GET', `/v1/trips${query}`, {key: s.keys.testSk})
    expect(r.status, query).toBe(200)
    return r.body.trips.map((trip: any) => trip.externalId)
  }

  it('lists newest updatedAt first without locations by default', async () => {
    const r = await s.call('GET', '/v1/trips', {key: s.keys.testSk})
    expect(r.body.meta).toEqual({code: 200, hasMore: false})
    expect(r.body.trips.map((trip: any) => trip.externalId)).toEqual(['a', 'c', 'b'])
    expect(r.body.trips[0].locations).toBeUndefined()
    expect(r.body.trips[1]).toMatchObject({status: 'completed', endedAt: expect.any(String)})
  })

  it('applies every filter', async () => {
    expect(await ids('?sortBy=createdAt')).toEqual(['c', 'b', 'a'])
    expect(await ids('?sortBy=updatedAt')).toEqual(['a', 'c', 'b'])
    expect(await ids('?status=pending')).toEqual(['b'])
    expect(await ids('?status=started,completed')).toEqual(['a', 'c'])
    expect(await ids('?status=expired')).toEqual([])
    expect(await ids('?destinationGeofenceTag=store')).toEqual(['a'])
    expect(await ids('?destinationGeofenceTag=depot&destinationGeofenceExternalId=d1')).toEqual(['b'])
    expect(await ids('?destinationGeofenceExternalId=s1')).toEqual(['a'])
    expect(await ids('?externalId=a,b')).toEqual(['a', 'b'])
    expect(await ids('?externalId=c')).toEqual(['c'])
    expect(await ids('?userId=driver')).toEqual(['a'])
    expect(await ids(`?userId=${driver.id}`)).toEqual(['a'])
    expect(await ids('?delayed=true')).toEqual(['b'])
    expect(await ids('?delayed=false')).toEqual(['a', 'c'])
    expect(await ids(`?createdAfter=${encodeURIComponent(t.a.createdAt)}&sortBy=createdAt`)).toEqual(['c', 'b'])
    expect(await ids(`?createdBefore=${encodeURIComponent(t.c.createdAt)}&sortBy=createdAt`)).toEqual(['b', 'a'])
    const withLocations = await s.call('GET', '/v1/trips?includeLocations=true&externalId=a,b', {key: s.keys.testSk})
    expect(withLocations.body.trips[0].locations).toHaveLength(1)
    expect(withLocations.body.trips[1].locations).toEqual([])
    expect(withLocations.body.trips[0].user).toEqual({_id: driver.id, userId: 'driver', deviceId: 'driver-phone'})
  })

  it('pages with limit and hasMore; default limit 500, bound 1000', async () => {
    const r = await s.call('GET', '/v1/trips?limit=2', {key: s.keys.testSk})
    expect(r.body.trips).toHaveLength(2)
    expect(r.body.meta.hasMore).toBe(true)
    const rest = await ids(`?updatedBefore=${encodeURIComponent(r.body.trips[1].updatedAt)}`)
    expect(rest).toEqual(['b'])
    for (const [q, param] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['status=pending,flying', 'status'], ['sortBy=name', 'sortBy'],
      ['includeLocations=maybe', 'includeLocations'], ['delayed=2', 'delayed'], ['createdAfter=x', 'createdAfter'], ['createdBefore=x', 'createdBefore']]) {
      const bad = await s.call('GET', `/v1/trips?${q}`, {key: s.keys.testSk})
      expect(bad.status, q).toBe(400)
      expect(bad.body.meta.param).toBe(param)
    }
    expect((await s.call('GET', '/v1/trips?limit=1000', {key: s.keys.testSk})).status).toBe(200)
  })

  it("pages one user's, one status's and named trips newest first, with other filters, through their indexes", async () => {
    for (const externalId of ['r1', 'r2', 'r3']) await create({externalId, userId: 'rider', metadata: {n: externalId}})
    await update('r1', {status: 'started'})
    try {
      expect(await ids('?userId=rider')).toEqual(['r1', 'r3', 'r2'])
      expect(await ids('?userId=rider&sortBy=createdAt')).toEqual(['r3', 'r2', 'r1'])
      expect(await ids('?userId=rider&status=pending')).toEqual(['r3', 'r2'])
      const first = await s.call('GET', '/v1/trips?userId=rider&limit=2', {key: s.keys.testSk})
      expect(first.body.trips.map((trip: any) => trip.externalId)).toEqual(['r1', 'r3'])
      expect(first.body.meta.hasMore).toBe(true)
      expect(await ids(`?userId=rider&updatedBefore=${encodeURIComponent(first.body.trips[1].updatedAt)}`)).toEqual(['r2'])
      // statuses and externalIds read their own index branches, merged in order
      expect(await ids('?status=started,pending')).toEqual(['r1', 'r3', 'r2', 'a', 'b'])
      const pending = await s.call('GET', '/v1/trips?status=pending&limit=2', {key: s.keys.testSk})
      expect(pending.body.trips.map((trip: any) => trip.externalId)).toEqual(['r3', 'r2'])
      expect(pending.body.meta.hasMore).toBe(true)
      expect(await ids(`?status=pending&updatedBefore=${encodeURIComponent(pending.body.trips[1].updatedAt)}`)).toEqual(['b'])
      expect(await ids('?externalId=r2,a,r2,nope&sortBy=createdAt')).toEqual(['r2', 'a'])
      expect(await ids('?externalId=r1,r2&status=started')).toEqual(['r1'])
    } finally {
      write(s.store, (tx) => tx.run(s.store.db.deleteFrom('trips').where('user_id', '=', 'rider')))
    }
  })

  it('keeps test and live apart', async () => {
    const live = await s.call('GET', '/v1/trips', {key: s.keys.liveSk})
    expect(live.body.trips.map((trip: any) => [trip.externalId, trip.live])).toEqual([['live', true]])
  })

  it('expires pending, started and approaching trips after trips.expireAfterHours', async () => {
    await setSetting(s.store, false, 'trips.expireAfterHours', 2)
    const in90min = new Date(Date.now() + 90 * 60_000)
    expect(await expireTrips(s.store, in90min)).toBe(0)
    const in3h = new Date(Date.now() + 3 * 3_600_000)
    expect(await expireTrips(s.store, in3h)).toBe(2)
    expect((await ids('?status=expired')).sort()).toEqual(['a', 'b'])
    expect(await ids('?status=completed')).toEqual(['c'])
    // live keeps the default 24 h
    expect((await s.call('GET', '/v1/trips', {key: s.keys.liveSk})).body.trips[0].status).toBe('pending')
    const expired = await s.call('GET', '/v1/trips/a', {key: s.keys.testSk})
    expect(expired.body.trip.endedAt).toEqual(expect.any(String))
    expect((await update('a', {status: 'expired'})).status).toBe(400)
  })
})

describe('a trip whose user is deleted', () => {
  it('stays, shows no user, and goes on with the next user of its userId', async () => {
    const track = (deviceId: string) => s.call('POST', '/v1/track', {key: s.keys.testPk, body: {deviceId, userId: 'gone-driver', latitude: 43.7, longitude: 7.4, foreground: true}})
    expect((await create({externalId: 'after-delete', userId: 'gone-driver'})).status).toBe(200)
    const first = await track('gone-phone')
    expect(first.body.user.trip).toMatchObject({externalId: 'after-delete', status: 'started'})
    expect((await s.call('DELETE', '/v1/users/gone-driver', {key: s.keys.testSk})).status).toBe(200)
    const orphan = await s.call('GET', '/v1/trips/after-delete', {key: s.keys.testSk})
    expect(orphan.body.trip).toMatchObject({status: 'started', userId: 'gone-driver'})
    expect(orphan.body.trip.user).toBeUndefined()

    const again = await track('new-phone')
    expect(again.body.user._id).not.toBe(first.body.user._id)
    expect(again.body.user.trip).toMatchObject({externalId: 'after-delete', status: 'started'})
    const trip = await s.call('GET', '/v1/trips/after-delete', {key: s.keys.testSk})
    expect(trip.body.trip.user).toMatchObject({_id: again.body.user._id, userId: 'gone-driver'})
  })
})
