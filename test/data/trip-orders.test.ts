import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {jobs, startJobs} from '../../src/jobs/index.js'
import {setSetting} from '../../src/project/settings.js'
import {mayBeDue, tripOrderJob} from '../../src/trips/orders.js'
import {insertUser} from '../../src/users/store.js'
import {startTestServer, type TestServer} from '../helpers.js'

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
  await insertUser(s.store, false, {user_id: 'driver', device_id: 'driver-phone'})
})
afterAll(async () => {
  await s.stop()
})

const create = (body: Record<string, unknown>, key = s.keys.testPk) => s.call('POST', '/v1/trips', {key, body})
const update = (ref: string, body: unknown) => s.call('PATCH', `/v1/trips/${ref}/update`, {key: s.keys.testPk, body})
const trip = async (ref: string, key = s.keys.testSk) => (await s.call('GET', `/v1/trips/${ref}`, {key})).body.trip
const eventCount = () => s.store.sqlite.prepare('SELECT count(*) FROM events').pluck().get()

describe('order firing by time (loc serve, every minute)', () => {
  it('is registered with loc serve', () => {
    expect(jobs).toContain(tripOrderJob)
  })

  it("sets orderFiredAt once when now reaches scheduledArrivalAt less the trip's, else its destination geofence's, else the project's threshold; for open trips only; updatedAt, status and events stay", async () => {
    const at = '2030-01-01T12:00:00.000Z'
    const minutesBefore = (m: number) => new Date(Date.parse(at) - m * 60_000)
    expect((await s.call('PUT', '/v1/geofences/orders/g20', {key: s.keys.testSk,
      body: {description: 'g20', type: 'circle', coordinates: [7.42, 43.733], radius: 30, tripApproachingThreshold: 20}})).status).toBe(200)
    const toG20 = {destinationGeofenceTag: 'orders', destinationGeofenceExternalId: 'g20', scheduledArrivalAt: at}
    for (const body of [
      {externalId: 'own', approachingThreshold: 10, ...toG20},
      {externalId: 'geofence', ...toG20},
      {externalId: 'project', scheduledArrivalAt: at},
      {externalId: 'started', userId: 'driver', scheduledArrivalAt: at},
      {externalId: 'arrived', scheduledArrivalAt: at},
      {externalId: 'unscheduled'},
      {externalId: 'completed', scheduledArrivalAt: at},
      {externalId: 'canceled', scheduledArrivalAt: at},
    ]) expect((await create(body)).status).toBe(200)
    await update('started', {status: 'started'})
    await update('arrived', {status: 'arrived'})
    await update('completed', {status: 'completed'})
    await update('canceled', {status: 'canceled'})
    // live: its own project threshold
    await setSetting(s.store, true, 'trips.approachingThreshold', 30)
    expect((await create({externalId: 'live', scheduledArrivalAt: at}, s.keys.livePk)).status).toBe(200)

    const names = ['own', 'geofence', 'project', 'started', 'arrived', 'unscheduled', 'completed', 'canceled']
    const before = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await trip(n)])))
    const liveBefore = await trip('live', s.keys.liveSk)
    const events = eventCount()

    const results: Array<[number, unknown]> = []
    for (const m of [31, 30, 20.001, 20, 10, 5, -60]) results.push([m, await tripOrderJob.run(s.system, minutesBefore(m))])
    expect(results).toEqual([[31, undefined], [30, {fired: 1}], [20.001, undefined], [20, {fired: 1}], [10, {fired: 1}], [5, {fired: 3}], [-60, undefined]])

    const fired = (m: number) => minutesBefore(m).toISOString()
    const after = Object.fromEntries(await Promise.all(names.map(async (n) => [n, await trip(n)])))
    expect(Object.fromEntries(names.map((n) => [n, after[n].orderFiredAt ?? null]))).toEqual({
      own: fired(10), geofence: fired(20), project: fired(5), started: fired(5), arrived: fired(5),
      unscheduled: null, completed: null, canceled: null,
    })
    // only the field: the trip as it was otherwise (updatedAt is the last location update)
    for (const n of names) {
      const {orderFiredAt: _, ...rest} = after[n]
      expect(rest, n).toEqual(before[n])
    }
    const live = await trip('live', s.keys.liveSk)
    expect(live).toEqual({...liveBefore, orderFiredAt: fired(30)})
    expect(eventCount()).toBe(events)
  })

  it('reads only the trips whose order may be due, through index trips_order_due, not every waiting trip', async () => {
    const at = Date.parse('2031-06-01T12:00:00.000Z')
    const soon = (m: number) => new Date(at + m * 60_000).toISOString()
    for (const [externalId, m] of [['far', 60 * 24 * 30], ['next-hour', 60], ['in-4', 4], ['past', -1]] as const) {
      expect((await create({externalId, scheduledArrivalAt: soon(m)})).status).toBe(200)
    }
    const read = mayBeDue(s.store, false, at, 5).compile()
    const plan = s.store.sqlite.prepare(`EXPLAIN QUERY PLAN ${read.sql}`).all(...read.parameters) as Array<{detail: string}>
    expect(plan.map((step) => step.detail)).toEqual([expect.stringMatching(/^SEARCH trips USING INDEX trips_order_due \(live=\? AND status=\? AND <expr><\?\)$/)])
    const ids = s.store.sqlite.prepare(read.sql).all(...read.parameters).map((row: any) => row.id)
    const names = await Promise.all(ids.map(async (id: string) => (await trip(id)).externalId))
    expect(names.sort()).toEqual(['in-4', 'past'])
  })

  it('runs on its timer with the running server', async () => {
    const soon = new Date(Date.now() + 60_000).toISOString()
    expect((await create({externalId: 'timed', scheduledArrivalAt: soon})).status).toBe(200)
    const running = startJobs(s.system, [{...tripOrderJob, everyMs: 20}])
    try {
      const deadline = Date.now() + 5000
      while (!(await trip('timed')).orderFiredAt && Date.now() < deadline) await new Promise((r) => setTimeout(r, 20))
    } finally {
      await running.stop()
    }
    const timed = await trip('timed')
    expect(timed.orderFiredAt >= timed.createdAt).toBe(true)
    expect(timed.updatedAt).toBe(timed.createdAt)
  })
})
