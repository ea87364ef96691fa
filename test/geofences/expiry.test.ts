import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {geofenceExpiryJob} from '../../src/geofences/expiry.js'
import {jobs} from '../../src/jobs/index.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {write} from '../../src/store/write.js'

let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  await s.stop()
})

const circle = (extra: Record<string, unknown> = {}) => ({description: 'Pop-up', type: 'circle', coordinates: [7.42, 43.73], radius: 100, ...extra})

describe('geofence expiry job', () => {
  it('is registered with loc serve', () => {
    expect(jobs).toContain(geofenceExpiryJob)
  })

  it('disables after disableAfter and deletes after deleteAfter, not before, in both environments', async () => {
    const sk = s.keys.testSk
    const disable = (await s.call('PUT', '/v1/geofences/temp/disable', {key: sk, body: circle({disableAfter: '2030-01-01T12:00:00Z'})})).body.geofence
    const remove = (await s.call('PUT', '/v1/geofences/temp/delete', {key: s.keys.liveSk, body: circle({deleteAfter: '2030-01-02T12:00:00Z'})})).body.geofence
    const keep = (await s.call('PUT', '/v1/geofences/temp/keep', {key: sk, body: circle()})).body.geofence
    write(s.store, (tx) => tx.run(s.store.db.insertInto('users').values({
      id: 'u00000000000000000000001', live: 1, user_id: 'u1', device_id: 'd1', install_id: null, description: null, metadata: null,
      lng: 7.42, lat: 43.73, location_accuracy: 5, foreground: 1, stopped: 1, device_type: 'Web', device_os: null, device_make: null,
      device_model: null, ip: null, context: null, created_at: '2026-01-01T00:00:00.000Z', updated_at: '2026-01-01T00:00:00.000Z',
      presence: JSON.stringify([[remove._id, '2026-01-01T00:00:00.000Z', 0, 3]]),
    })))
    const userGeofences = async () => (await s.call('GET', '/v1/users/u00000000000000000000001', {key: s.keys.liveSk})).body.user.geofences.map((g: {_id: string}) => g._id)
    expect(await userGeofences()).toEqual([remove._id])

    expect(await geofenceExpiryJob.run(s.system, new Date('2030-01-01T11:59:59.999Z'))).toBeUndefined()
    expect((await s.call('GET', `/v1/geofences/${disable._id}`, {key: sk})).body.geofence.enabled).toBe(true)

    expect(await geofenceExpiryJob.run(s.system, new Date('2030-01-01T12:00:00Z'))).toEqual({disabled: 1, deleted: 0})
    const disabled = (await s.call('GET', `/v1/geofences/${disable._id}`, {key: sk})).body.geofence
    expect(disabled.enabled).toBe(false)
    expect(disabled.updatedAt > disable.updatedAt).toBe(true)
    expect(disabled.disableAfter).toBe('2030-01-01T12:00:00.000Z')
    // idempotent: a second run finds nothing to do
    expect(await geofenceExpiryJob.run(s.system, new Date('2030-01-01T13:00:00Z'))).toBeUndefined()

    expect(await geofenceExpiryJob.run(s.system, new Date('2030-01-03T00:00:00Z'))).toEqual({disabled: 0, deleted: 1})
    expect((await s.call('GET', `/v1/geofences/${remove._id}`, {key: s.keys.liveSk})).status).toBe(404)
    // the user inside it is no longer shown inside it (its presence ends without an event at its next track)
    expect(await userGeofences()).toEqual([])
    expect((await s.call('GET', `/v1/geofences/${keep._id}`, {key: sk})).body.geofence).toEqual(keep)
  })
})
