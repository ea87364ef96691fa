import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'

// A full disk, made real: SQLite refuses to grow the store past `max_page_count` with the same
// SQLITE_FULL it returns when the file system has no room left
describe('a store whose disk is full', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
  })
  afterAll(() => server.stop())

  const FULL = {code: 503, error: 'unavailable', message: "Service temporarily unavailable: the store's disk is full; nothing was written."}
  // ~4 KB a user: a handful fill the free pages, the rest need the file to grow
  const metadata = Object.fromEntries(Array.from({length: 16}, (_, i) => [`k${i}`, 'y'.repeat(255)]))
  const track = (deviceId: string) =>
    server.call('POST', '/v1/track', {key: server.keys.testPk, body: {latitude: 43.735, longitude: 7.42, deviceId, metadata}})
  const users = () => server.store.sqlite.prepare('SELECT device_id FROM users ORDER BY device_id').pluck().all() as string[]

  it('answers 503 to the writes that do not fit, stores none of them, keeps the others, and serves reads; all fit again once there is room', async () => {
    expect((await track('before')).status).toBe(200)
    const sqlite = server.store.sqlite
    const room = sqlite.pragma('max_page_count', {simple: true}) as number
    sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', {simple: true})}`)

    // one batch of concurrent tracks, committed together
    const devices = Array.from({length: 12}, (_, i) => `full-${String(i).padStart(2, '0')}`)
    const answers = await Promise.all(devices.map(track))
    const refused = devices.filter((_, i) => answers[i].status !== 200)
    expect(refused.length).toBeGreaterThan(0)
    for (const res of answers.filter((r) => r.status !== 200)) expect(res.body).toEqual({meta: FULL})
    // whatever was answered 200 is stored, whatever was refused is not
    expect(users()).toEqual(['before', ...devices.filter((d) => !refused.includes(d))])

    const geofence = await server.call('PUT', '/v1/geofences/full/1', {key: server.keys.testSk,
      body: {description: 'Full', type: 'circle', coordinates: [7.42, 43.735], radius: 100, metadata}})
    expect(geofence.body).toEqual({meta: FULL})
    expect((await server.call('GET', '/v1/geofences/full/1', {key: server.keys.testSk})).status).toBe(404)
    expect((await server.call('GET', '/v1/users', {key: server.keys.testSk})).status).toBe(200)

    sqlite.pragma(`max_page_count = ${room}`)
    for (const device of refused) expect((await track(device)).status).toBe(200)
    expect(users()).toEqual(['before', ...devices])
    expect((await server.call('PUT', '/v1/geofences/full/1', {key: server.keys.testSk,
      body: {description: 'Full', type: 'circle', coordinates: [7.42, 43.735], radius: 100, metadata}})).status).toBe(200)
  })
})
