import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {geofenceEngine} from '../../src/geofences/index.js'
import {insertGeofence} from '../../src/geofences/store.js'
import {setSettings} from '../../src/project/settings.js'
import {write} from '../../src/store/write.js'
import {addWebhook} from '../../src/webhooks/registry.js'
import {snapshot} from '../data/helpers.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {startReceiver} from '../webhooks/receiver.js'

const MONACO = {latitude: 43.735, longitude: 7.42}
/** What the hosted original's web SDK sends, captured on the wire. */
const WEB_SDK = {
  ...MONACO, accuracy: 12, userId: null, description: null, metadata: null, locationAuthorization: 'GRANTED_FOREGROUND',
  deviceId: 'web-device', deviceType: 'Web', foreground: true, installId: 'install-1', sessionId: 'session-1',
  sdkVersion: '4.4.1', stopped: false, tripOptions: null,
}

describe('POST /v1/track', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
    await server.call('PUT', '/v1/geofences/store/1', {key: server.keys.testSk, body: {description: 'Store', type: 'circle', coordinates: [7.42, 43.735], radius: 100, metadata: {brand: 'x'}}})
  })
  afterAll(() => server.stop())
  const track = (body: unknown, key = server.keys.testPk) => server.call('POST', '/v1/track', {key, body})
  const count = (table: 'users' | 'events') => (server.store.sqlite.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number)

  it('accepts what the web SDK sends and answers {meta, events, user} with the user fields of the spec', async () => {
    const res = await track(WEB_SDK)
    expect(res.status).toBe(200)
    expect(res.body.meta).toEqual({code: 200})
    expect(res.body.events.map((e: any) => e.type)).toEqual(['user.entered_geofence'])
    const [event] = res.body.events
    expect(event).toMatchObject({live: false, confidence: 3, geofence: {tag: 'store', externalId: '1', description: 'Store', metadata: {brand: 'x'}},
      location: {type: 'Point', coordinates: [7.42, 43.735]}, locationAccuracy: 12, user: {deviceId: 'web-device'}})
    expect(res.body.user).toMatchObject({
      live: false, userId: null, deviceId: 'web-device', installId: 'install-1', deviceType: 'Web', foreground: true, stopped: false,
      location: {type: 'Point', coordinates: [7.42, 43.735]}, locationAccuracy: 12, ip: expect.any(String), segments: [], topChains: [],
      geofences: [{tag: 'store', externalId: '1', description: 'Store', metadata: {brand: 'x'}}],
    })
    expect(res.body.user.trip).toBeUndefined()
    const listed = await server.call('GET', `/v1/events/${event._id}`, {key: server.keys.testSk})
    expect(listed.body.event).toEqual(event)
    // the stored user reads back as track answered it (its geofences are those of its presence, rendered on read)
    const stored = await server.call('GET', `/v1/users/${res.body.user._id}`, {key: server.keys.testSk})
    expect(stored.body.user).toEqual(res.body.user)
    const row = server.store.sqlite.prepare('SELECT context, presence FROM users WHERE id = ?').get(res.body.user._id) as {context: string; presence: string}
    expect(JSON.parse(row.presence).map(([id]: [string]) => id)).toEqual([event.geofence._id])
    // written as JSON.stringify writes it (presence.ts builds the text itself)
    expect(row.presence).toBe(JSON.stringify(JSON.parse(row.presence)))
    expect(JSON.parse(row.context).geofences).toBeUndefined()
  })

  it("a user's geofences read as they are now: a geofence deleted since is left out, a changed one shows its change", async () => {
    const put = (description: string) => server.call('PUT', '/v1/geofences/gone/1', {key: server.keys.testSk, body: {description, type: 'circle', coordinates: [7.43, 43.74], radius: 100}})
    await put('Before')
    const res = await track({latitude: 43.74, longitude: 7.43, deviceId: 'reader', accuracy: 5, foreground: true})
    expect(res.body.user.geofences.map((g: any) => g.description)).toEqual(['Before'])
    await put('After')
    const read = () => server.call('GET', `/v1/users/${res.body.user._id}`, {key: server.keys.testSk})
    expect((await read()).body.user.geofences.map((g: any) => g.description)).toEqual(['After'])
    await server.call('DELETE', '/v1/geofences/gone/1', {key: server.keys.testSk})
    expect((await read()).body.user.geofences).toEqual([])
  })

  it("a user's geofences read back in the answer's order (tag, externalId), whatever order they were entered in", async () => {
    const put = (tag: string, lng: number) => server.call('PUT', `/v1/geofences/${tag}/1`, {key: server.keys.testSk, body: {description: tag, type: 'circle', coordinates: [lng, 43.76], radius: 300}})
    await put('order-b', 7.45)
    await put('order-a', 7.453)
    const at = (lng: number) => ({latitude: 43.76, longitude: lng, deviceId: 'orderly', accuracy: 5, foreground: true})
    expect((await track(at(7.4475))).body.user.geofences.map((g: any) => g.description)).toEqual(['order-b'])
    const both = await track(at(7.4515))
    expect(both.body.events.map((e: any) => e.geofence.description)).toEqual(['order-a'])
    expect(both.body.user.geofences.map((g: any) => g.description)).toEqual(['order-a', 'order-b'])
    expect((await server.call('GET', `/v1/users/${both.body.user._id}`, {key: server.keys.testSk})).body.user).toEqual(both.body.user)
  })

  it("a fix that leaves one geofence and enters another keeps the user's geofences in answer order", async () => {
    const put = (tag: string, description: string, lng: number) =>
      server.call('PUT', `/v1/geofences/${tag}/1`, {key: server.keys.testSk, body: {description, type: 'circle', coordinates: [lng, 43.78], radius: 300}})
    await put('mix-b', 'B', 7.45)
    await put('mix-a', 'A', 7.453)
    await put('mix-c', 'C', 7.456)
    await put('mix-ab', 'AB', 7.4595)
    const at = (lng: number) => ({latitude: 43.78, longitude: lng, deviceId: 'mixer', accuracy: 5, foreground: true})
    const moved = async (lng: number) => {
      const {body} = await track(at(lng))
      return [body.events.map((e: any) => `${e.type.split('_')[0].slice(5)} ${e.geofence.description}`), body.user.geofences.map((g: any) => g.description)]
    }
    expect(await moved(7.4515)).toEqual([['entered A', 'entered B'], ['A', 'B']])
    expect(await moved(7.4545)).toEqual([['exited B', 'entered C'], ['A', 'C']])
    expect(await moved(7.4575)).toEqual([['exited A', 'entered AB'], ['AB', 'C']])
    expect(await moved(7.4545)).toEqual([['exited AB', 'entered A'], ['A', 'C']])
    expect(await moved(7.4515)).toEqual([['exited C', 'entered B'], ['A', 'B']])
    const {presence} = server.store.sqlite.prepare("SELECT presence FROM users WHERE device_id = 'mixer'").get() as {presence: string}
    expect(JSON.parse(presence)).toHaveLength(2)
    expect(presence).toBe(JSON.stringify(JSON.parse(presence)))
  })

  it("a user's geofences stay current across fixes that change nothing, an edit of one of them, and an exit", async () => {
    const put = (tag: string, description: string, lng: number) =>
      server.call('PUT', `/v1/geofences/${tag}/1`, {key: server.keys.testSk, body: {description, type: 'circle', coordinates: [lng, 43.77], radius: 300}})
    await put('keep-b', 'B', 7.45)
    await put('keep-a', 'A', 7.453)
    const at = (lng: number) => ({latitude: 43.77, longitude: lng, deviceId: 'keeper', accuracy: 5, foreground: true})
    const names = async (lng: number) => (await track(at(lng))).body.user.geofences.map((g: any) => g.description)
    expect(await names(7.4515)).toEqual(['A', 'B'])
    expect(await names(7.4516)).toEqual(['A', 'B'])
    // edited in place: the next fix, entering and leaving nothing, shows the geofence as it is now
    await put('keep-a', 'A2', 7.453)
    expect(await names(7.4515)).toEqual(['A2', 'B'])
    expect(await names(7.4475)).toEqual(['B'])
    expect(await names(7.4474)).toEqual(['B'])
  })

  it('a moving device enters geofences created beside it since its last fix, and those it reaches by a long jump', async () => {
    const at = (lng: number, accuracy = 20) => ({latitude: 43.79, longitude: lng, deviceId: 'mover', accuracy, foreground: true})
    const entered = async (lng: number, accuracy?: number) =>
      (await track(at(lng, accuracy))).body.events.filter((e: any) => e.type === 'user.entered_geofence').map((e: any) => e.geofence.description)
    expect(await entered(7.5)).toEqual([])
    // created 30 m on from the last fix: the next fix, as near, must see it
    await server.call('PUT', '/v1/geofences/hood/new', {key: server.keys.testSk, body: {description: 'New', type: 'circle', coordinates: [7.5004, 43.79], radius: 15}})
    expect(await entered(7.5004)).toEqual(['New'])
    // one already there, 2 km on, and 150 m on from that with a wide disc
    await server.call('PUT', '/v1/geofences/hood/far', {key: server.keys.testSk, body: {description: 'Far', type: 'circle', coordinates: [7.525, 43.79], radius: 50}})
    await server.call('PUT', '/v1/geofences/hood/next', {key: server.keys.testSk, body: {description: 'Next', type: 'circle', coordinates: [7.52685, 43.79], radius: 120}})
    expect(await entered(7.525, 5)).toEqual(['Far'])
    expect(await entered(7.52685, 100)).toEqual(['Next'])
  })

  it('a user inside a geofence is not entered again when hundreds of other geofences change (the engine rebuilds its tree)', async () => {
    await server.call('PUT', '/v1/geofences/rebuild/1', {key: server.keys.testSk, body: {description: 'Kept', type: 'circle', coordinates: [7.41, 43.73], radius: 100}})
    const at = {latitude: 43.73, longitude: 7.41, deviceId: 'stayer', accuracy: 5, foreground: true}
    expect((await track(at)).body.events.map((e: any) => e.geofence.description)).toEqual(['Kept'])
    // more changes at once than the engine keeps beside its tree: it rebuilds, every geofence a new object
    write(server.store, (tx) => {
      for (let i = 0; i < 300; i++) insertGeofence(tx, false, {...geofenceInputSchema.parse({description: `Far ${i}`, type: 'circle', coordinates: [7.3 + i / 1000, 43.6], radius: 50}), tag: 'far', externalId: String(i)})
    })
    for (let i = 0; i < 2; i++) {
      const res = await track(at)
      expect(res.body.events).toEqual([])
      expect(res.body.user.geofences.map((g: any) => g.description)).toEqual(['Kept'])
      // the second fix after the rebuilt tree took over (it is built in the background)
      await geofenceEngine(server.store).settled()
    }
  })

  it('a fix inside more than 100 overlapping geofences enters the 100 of highest confidence, then in answer order', async () => {
    const at = {longitude: 7.46, latitude: 43.77}
    write(server.store, (tx) => {
      for (let i = 0; i < 150; i++) {
        // every tenth a small circle holding only half the accuracy disc: confidence 2, enough to enter
        const radius = i % 10 === 9 ? 75 : 200 + i
        insertGeofence(tx, false, {...geofenceInputSchema.parse({description: `Crowd ${i}`, type: 'circle', coordinates: [at.longitude, at.latitude], radius}),
          tag: 'crowd', externalId: String(i).padStart(3, '0')})
      }
    })
    const fix = {...at, deviceId: 'crowded', accuracy: 100, foreground: true}
    const first = await track(fix)
    expect(first.status).toBe(200)
    const expected = Array.from({length: 150}, (_, i) => String(i).padStart(3, '0')).filter((_, i) => i % 10 !== 9).slice(0, 100)
    expect(first.body.events.map((e: any) => [e.type, e.geofence.externalId, e.confidence])).toEqual(expected.map((id) => ['user.entered_geofence', id, 3]))
    expect(first.body.user.geofences.map((g: any) => g.externalId)).toEqual(expected)
    const again = await track(fix)
    expect(again.body.events).toEqual([])
    expect(again.body.user.geofences).toHaveLength(100)
    // full: a geofence of the same confidence and an earlier key does not push one out
    write(server.store, (tx) => insertGeofence(tx, false, {...geofenceInputSchema.parse({description: 'Late', type: 'circle', coordinates: [at.longitude, at.latitude], radius: 500}), tag: 'crowd', externalId: '000a'}))
    const full = await track(fix)
    expect(full.body.events).toEqual([])
    expect(full.body.user.geofences.map((g: any) => g.externalId)).toEqual(expected)
  })

  it('deviceId alone is a logged-out user; userId with the deviceId logs that user in (same _id)', async () => {
    const out = await track({...MONACO, deviceId: 'phone-7', accuracy: 5})
    const inUser = await track({...MONACO, deviceId: 'phone-7', userId: 'alice', accuracy: 5})
    expect(inUser.body.user._id).toBe(out.body.user._id)
    expect(inUser.body.user.userId).toBe('alice')
    const again = await track({...MONACO, deviceId: 'phone-8', userId: 'alice', accuracy: 5})
    expect(again.body.user._id).toBe(out.body.user._id)
    expect(again.body.user.deviceId).toBe('phone-8')
  })

  it("deviceId alone updates the device's newest user, whichever user last tracked on it", async () => {
    const at = (minute: number) => `2026-01-01T10:0${minute}:00Z`
    const out = await track({...MONACO, deviceId: 'shared', accuracy: 5, updatedAt: at(0)})
    const bob = await track({...MONACO, deviceId: 'shared', userId: 'bob', accuracy: 5, updatedAt: at(1)})
    expect(bob.body.user._id).toBe(out.body.user._id)
    // carol finds no logged-out user on the device (bob adopted it): a second user of the device
    const carol = await track({...MONACO, deviceId: 'shared', userId: 'carol', accuracy: 5, updatedAt: at(2)})
    expect(carol.body.user._id).not.toBe(bob.body.user._id)
    expect((await track({...MONACO, deviceId: 'shared', accuracy: 5, updatedAt: at(3)})).body.user).toMatchObject({_id: carol.body.user._id, userId: 'carol'})
    await track({...MONACO, deviceId: 'shared', userId: 'bob', accuracy: 5, updatedAt: at(4)})
    expect((await track({...MONACO, deviceId: 'shared', accuracy: 5, updatedAt: at(5)})).body.user).toMatchObject({_id: bob.body.user._id, userId: 'bob'})
  })

  it("a logged-out device's trip, started by tripOptions, goes on with the tracks that follow without them", async () => {
    const started = await track({...MONACO, deviceId: 'courier-9', accuracy: 5, tripOptions: {externalId: 'order-9', mode: 'car'}})
    expect(started.body.events.map((e: any) => e.type)).toContain('user.started_trip')
    const next = await track({...MONACO, latitude: MONACO.latitude + 0.001, deviceId: 'courier-9', accuracy: 5, updatedAt: new Date(Date.now() + 1).toISOString()})
    expect(next.body.user.trip).toMatchObject({externalId: 'order-9', status: 'started'})
    expect(next.body.events.map((e: any) => e.type)).toContain('user.updated_trip')
  })

  it('takes updatedAt older than the last update, or absent, as server time; replayed events keep their time', async () => {
    const first = await track({...MONACO, deviceId: 'hist', accuracy: 5, updatedAt: '2026-01-01T10:00:00Z', replayed: true})
    expect(first.body.user.updatedAt).toBe('2026-01-01T10:00:00.000Z')
    expect(first.body.events[0]).toMatchObject({createdAt: '2026-01-01T10:00:00.000Z', replayed: true})
    const older = await track({...MONACO, deviceId: 'hist', accuracy: 5, updatedAt: '2025-12-31T10:00:00Z'})
    expect(Date.parse(older.body.user.updatedAt)).toBeGreaterThan(Date.now() - 60_000)
  })

  it('refuses bad input naming the param, and stores nothing', async () => {
    const users = count('users'), events = count('events')
    const cases: Array<[Record<string, unknown>, string]> = [
      [{latitude: 43.7, longitude: 7.4}, 'deviceId'],
      [{deviceId: 'd', longitude: 7.4}, 'latitude'],
      [{deviceId: 'd', latitude: 91, longitude: 7.4}, 'latitude'],
      [{deviceId: 'd', latitude: 43, longitude: -181}, 'longitude'],
      [{deviceId: 'd', ...MONACO, accuracy: 0}, 'accuracy'],
      [{deviceId: 'd', ...MONACO, accuracy: -3}, 'accuracy'],
      [{deviceId: 'd', ...MONACO, deviceType: 'Symbian'}, 'deviceType'],
      [{deviceId: 'd', ...MONACO, metadata: Object.fromEntries(Array.from({length: 33}, (_, i) => [`k${i}`, i]))}, 'metadata'],
      [{deviceId: 'd', ...MONACO, metadata: {nested: {a: 1}}}, 'metadata.nested'],
      [{deviceId: 'd', ...MONACO, updatedAt: 'yesterday'}, 'updatedAt'],
      [{deviceId: 'd', ...MONACO, stopped: 'maybe'}, 'stopped'],
      [{deviceId: 'd', ...MONACO, tripOptions: {mode: 'car'}}, 'tripOptions.externalId'],
      [{deviceId: 'd', ...MONACO, beacons: [{major: 1}]}, 'beacons.0'],
    ]
    for (const [body, param] of cases) {
      const res = await track(body)
      expect(res.status, JSON.stringify(body)).toBe(400)
      expect(res.body.meta.param).toBe(param)
      expect(res.body.meta.message).toMatch(new RegExp(`^${param.replace('.', '\\.')}: `))
    }
    expect([count('users'), count('events')]).toEqual([users, events])
  })

  it('refuses a body that is not an object, null too, as "body: must be an object", on every route', async () => {
    const users = count('users')
    for (const body of ['null', '[]', '5', '"x"', 'true']) {
      const res = await track(body)
      expect(res.body.meta, body).toMatchObject({code: 400, error: 'invalid_parameter', param: 'body', message: 'body: must be an object'})
      const geofence = await server.call('POST', '/v1/geofences', {key: server.keys.testSk, body})
      expect(geofence.body.meta, body).toMatchObject({code: 400, param: 'body', message: 'body: must be an object'})
    }
    expect(count('users')).toBe(users)
  })

  it('refuses an accuracy over 20,000 km (half the way round the Earth), storing nothing, and takes one up to it', async () => {
    const users = count('users')
    for (const accuracy of [20_000_001, 1e12, 1e20, 1e308, '1e12']) {
      const res = await track({...MONACO, deviceId: 'vague', accuracy})
      expect(res.body.meta, String(accuracy)).toMatchObject({code: 400, param: 'accuracy', message: 'accuracy: number at most 20000000 (meters: half the way round the Earth)'})
    }
    expect(count('users')).toBe(users)
    const res = await track({...MONACO, deviceId: 'vague', accuracy: 20_000_000})
    expect(res.status).toBe(200)
    expect(res.body.user.locationAccuracy).toBe(20_000_000)
  })

  it('takes an updatedAt before 2000-01-01 (an unset clock: year 1, the Unix epoch) as server time, as one from the future', async () => {
    for (const [i, updatedAt] of ['0001-01-01T00:00:00Z', '1970-01-01T00:00:00Z', '1999-12-31T23:59:59Z'].entries()) {
      const res = await track({...MONACO, deviceId: `unset-clock-${i}`, updatedAt})
      expect(Date.parse(res.body.user.createdAt), updatedAt).toBeGreaterThan(Date.now() - 60_000)
      expect(Date.parse(res.body.user.updatedAt), updatedAt).toBeGreaterThan(Date.now() - 60_000)
    }
    const earliest = await track({...MONACO, deviceId: 'set-clock', updatedAt: '2000-01-01T00:00:00Z'})
    expect(earliest.body.user).toMatchObject({createdAt: '2000-01-01T00:00:00.000Z', updatedAt: '2000-01-01T00:00:00.000Z'})
  })

  it('survives a seeded fuzz of bad values: every answer is 200 or 400, never a fault', async () => {
    let seed = 42
    const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
    const bad = [null, '', 'x'.repeat(5000), -1, 1e308, Number.NaN, true, [], {}, [1, 2], {a: {b: 1}}, '43.7', '∞']
    const fields = ['deviceId', 'userId', 'latitude', 'longitude', 'accuracy', 'foreground', 'stopped', 'description', 'metadata', 'deviceType',
      'updatedAt', 'replayed', 'deviceOS', 'altitude', 'verticalAccuracy', 'tripOptions', 'beacons', 'mocked', 'installId']
    for (let i = 0; i < 120; i++) {
      const field = fields[Math.floor(rand() * fields.length)]
      const value = bad[Math.floor(rand() * bad.length)]
      const res = await track({...MONACO, deviceId: `fuzz-${i}`, [field]: value})
      expect([200, 400], `${field}=${JSON.stringify(value)}`).toContain(res.status)
      if (res.status === 400) expect(res.body.meta.param.split('.')[0]).toBe(field)
    }
  })

  it('GET /v1/context answers the geofences and country at a point without storing anything', async () => {
    const users = count('users')
    const res = await server.call('GET', '/v1/context?coordinates=43.735,7.42', {key: server.keys.testPk})
    expect(res.status).toBe(200)
    expect(res.body.geofences.map((g: any) => g.externalId)).toEqual(['1'])
    expect(res.body.country).toEqual({code: 'MC', name: 'Monaco', flag: '🇲🇨'})
    expect(res.body.state).toBeNull()
    const ny = await server.call('GET', '/v1/context?coordinates=40.7506,-73.9935', {key: server.keys.testPk})
    expect(ny.body).toMatchObject({country: {code: 'US'}, state: {code: 'NY', name: 'New York'}, dma: null, postalCode: null})
    expect(count('users')).toBe(users)
    const bad = await server.call('GET', '/v1/context?coordinates=91,7', {key: server.keys.testPk})
    expect(bad.body.meta.param).toBe('coordinates')
  })

  it('fraud (when enabled) reports jumped, inaccurate, mocked with their last times; passed when none holds', async () => {
    await setSettings(server.store, false, {'fraud.enabled': true})
    try {
      const first = await track({deviceId: 'fraud-1', ...MONACO, accuracy: 5})
      expect(first.body.user.fraud).toMatchObject({passed: true, blocked: false, jumped: false, mocked: false, lastJumpedAt: null})
      const jump = await track({deviceId: 'fraud-1', latitude: 44.5, longitude: 7.42, accuracy: 2000, mocked: true})
      expect(jump.body.user.fraud).toMatchObject({passed: false, blocked: false, jumped: true, inaccurate: true, mocked: true, proxy: false})
      expect(jump.body.user.fraud.lastJumpedAt).toBe(jump.body.user.updatedAt)
      const calm = await track({deviceId: 'fraud-1', latitude: 44.5, longitude: 7.42, accuracy: 5})
      expect(calm.body.user.fraud).toMatchObject({passed: true, jumped: false, lastJumpedAt: jump.body.user.updatedAt})
    } finally {
      await setSettings(server.store, false, {'fraud.enabled': false})
    }
  })

  it('events.types takes only event types loc records', async () => {
    await expect(setSettings(server.store, false, {'events.types': ['user.entered_geofence', 'bogus.type']})).rejects.toMatchObject({
      code: 'invalid_parameter', param: 'events.types.1', message: expect.stringMatching(/^events.types.1: each must be an event type: user.entered_geofence, .*user.entered_region_postal_code, .*conversion$/)})
    await setSettings(server.store, false, {'events.types': ['user.exited_region_country', 'conversion']})
    await setSettings(server.store, false, {'events.types': []})
  })

  it('fraud.proxyRanges: an invalid range is refused, and one stored before the check gives no 500', async () => {
    for (const bad of [['10.0.0.0/33'], ['::1/200'], ['not-a-cidr']]) {
      await expect(setSettings(server.store, false, {'fraud.proxyRanges': bad})).rejects.toMatchObject({
        code: 'invalid_parameter', param: 'fraud.proxyRanges.0', message: 'fraud.proxyRanges.0: each must be an IP address, an IPv4 last-octet wildcard (10.0.0.*) or a CIDR range (10.0.0.0/8, 2001:db8::/32)'})
    }
    // as a store written before the check holds it: the bad range is skipped, the good one counts
    write(server.store, (tx) => tx.run(server.store.db.insertInto('settings').values({live: 0, key: 'fraud.proxyRanges', value: '["10.0.0.0/33","127.0.0.0/8"]', updated_at: new Date().toISOString()})
      .onConflict((oc) => oc.columns(['live', 'key']).doUpdateSet({value: '["10.0.0.0/33","127.0.0.0/8"]'}))))
    await setSettings(server.store, false, {'fraud.enabled': true})
    try {
      const res = await track({deviceId: 'proxied', ...MONACO, accuracy: 5})
      expect(res.status).toBe(200)
      expect(res.body.user.fraud).toMatchObject({passed: false, proxy: true})
    } finally {
      await setSettings(server.store, false, {'fraud.enabled': false, 'fraud.proxyRanges': []})
    }
  })

  it('GET /v1/search/beacons answers enabled beacons within 1 km, nearest first', async () => {
    const beacon = (externalId: string, coordinates: number[], enabled = true) => server.call('POST', '/v1/beacons', {key: server.keys.testSk, body: {
      description: externalId, tag: 'b', externalId, type: 'eddystone', uid: 'edd1ebeac04e5defa017', instance: '0123456789ab', coordinates, enabled}})
    await beacon('far', [7.44, 43.735])
    await beacon('near', [7.4201, 43.735])
    await beacon('mid', [7.425, 43.735])
    await beacon('off', [7.42, 43.735], false)
    const res = await server.call('GET', '/v1/search/beacons?near=43.735,7.42', {key: server.keys.testPk})
    expect(res.body.beacons.map((b: any) => b.externalId)).toEqual(['near', 'mid'])
  })
})

describe('POST /v1/track with tripOptions', () => {
  let server: TestServer
  beforeAll(async () => {
    // webhooks to a receiver on 127.0.0.1, polled often
    server = await startTestServer({webhooks: {allowPrivate: true, pollMs: 50}})
    await server.call('PUT', '/v1/geofences/dock/1', {key: server.keys.testSk, body: {description: 'Dock', type: 'circle', coordinates: [7.42, 43.735], radius: 100}})
  })
  afterAll(() => server.stop())
  const track = (body: unknown) => server.call('POST', '/v1/track', {key: server.keys.testPk, body})
  const tables = () => snapshot(server, 'users', 'trips', 'trip_locations', 'events')
  const FIX = {latitude: 43.745, longitude: 7.435, accuracy: 5}
  const refused = async (body: unknown, status: number, error: string, param: string, message: string) => {
    const before = await tables()
    const res = await track(body)
    expect(res.body, JSON.stringify(body)).toEqual({meta: {code: status, error, param, message: `${param}: ${message}`}})
    expect(res.status).toBe(status)
    expect(await tables()).toEqual(before)
  }

  it('refuses a destination POST /v1/trips would refuse (a half of the pair, or no such geofence), for a new user and a known one, changing nothing', async () => {
    expect((await track({...FIX, deviceId: 'to1', userId: 'tou1'})).status).toBe(200)
    for (const [deviceId, userId] of [['to1', 'tou1'], ['to2', 'tou2']]) {
      const body = (tripOptions: unknown) => ({...FIX, deviceId, userId, tripOptions})
      await refused(body({externalId: 'o3', destinationGeofenceTag: 'nope', destinationGeofenceExternalId: 'nope'}), 400, 'invalid_parameter',
        'tripOptions.destinationGeofenceExternalId', 'must name an existing geofence with tag "nope"')
      await refused(body({externalId: 'o3', destinationGeofenceTag: 'dock', destinationGeofenceExternalId: '2'}), 400, 'invalid_parameter',
        'tripOptions.destinationGeofenceExternalId', 'must name an existing geofence with tag "dock"')
      await refused(body({externalId: 'o3', destinationGeofenceTag: 'dock'}), 400, 'invalid_parameter',
        'tripOptions.destinationGeofenceExternalId', 'required with destinationGeofenceTag')
      await refused(body({externalId: 'o3', destinationGeofenceTag: 'dock', destinationGeofenceExternalId: null}), 400, 'invalid_parameter',
        'tripOptions.destinationGeofenceExternalId', 'required with destinationGeofenceTag')
      await refused(body({externalId: 'o3', destinationGeofenceExternalId: '1'}), 400, 'invalid_parameter',
        'tripOptions.destinationGeofenceTag', 'required with destinationGeofenceExternalId')
    }
    // an existing destination starts the trip towards it (2 km: under 5 minutes by car)
    const ok = await track({...FIX, deviceId: 'to2', userId: 'tou2', tripOptions: {externalId: 'o3', destinationGeofenceTag: 'dock', destinationGeofenceExternalId: '1'}})
    expect(ok.body.events.map((e: any) => e.type)).toEqual(['user.started_trip', 'user.approaching_trip_destination'])
    expect(ok.body.user.trip).toMatchObject({externalId: 'o3', status: 'approaching', destinationLocation: {type: 'Point', coordinates: [7.42, 43.735]}})
  })

  it('each trip event carries the trip as it stood at its transition: a first fix already within the threshold, or inside the destination', async () => {
    const at = new Date(Date.now() - 1000).toISOString()
    const first = async (deviceId: string, position: {latitude: number; longitude: number}) => {
      const res = await track({...position, accuracy: 5, updatedAt: at, deviceId, userId: deviceId, tripOptions: {externalId: deviceId, destinationGeofenceTag: 'dock', destinationGeofenceExternalId: '1'}})
      expect(res.status).toBe(200)
      const stored = await server.call('GET', `/v1/events?userId=${deviceId}`, {key: server.keys.testSk})
      expect(stored.body.events.reverse()).toEqual(res.body.events)
      return {trip: res.body.user.trip.status, events: res.body.events.map((e: any) => [e.type, e.trip && [e.trip.status, e.trip.arrivedAt ?? null, e.trip.eta]])}
    }
    const eta = {duration: 1.97, distance: 1640, source: 'straightLine'}
    expect(await first('first-near', FIX)).toEqual({trip: 'approaching', events: [
      ['user.started_trip', ['started', null, eta]],
      ['user.approaching_trip_destination', ['approaching', null, eta]],
    ]})
    const there = {duration: 0, distance: 0, source: 'straightLine'}
    expect(await first('first-inside', {latitude: 43.735, longitude: 7.42})).toEqual({trip: 'arrived', events: [
      ['user.entered_geofence', undefined],
      ['user.started_trip', ['started', null, there]],
      ['user.arrived_at_trip_destination', ['arrived', at, there]],
    ]})
  })

  it('a refused track in a group commit leaves the tracks committed with it alone', async () => {
    const [bad, good] = await Promise.all([
      track({...FIX, deviceId: 'tb1', tripOptions: {externalId: 'o4', destinationGeofenceTag: 'nope', destinationGeofenceExternalId: 'nope'}}),
      track({...FIX, deviceId: 'tb2', tripOptions: {externalId: 'o5'}}),
    ])
    expect([bad.status, good.status]).toEqual([400, 200])
    expect(good.body.events.map((e: any) => e.type)).toEqual(['user.started_trip'])
    const devices = server.store.sqlite.prepare("SELECT device_id FROM users WHERE device_id IN ('tb1', 'tb2')").pluck().all()
    expect(devices).toEqual(['tb2'])
    expect(server.store.sqlite.prepare("SELECT external_id FROM trips WHERE external_id IN ('o4', 'o5')").pluck().all()).toEqual(['o5'])
  })

  it("refuses to name another user's open trip (409, as POST /v1/trips with its externalId), changing nothing; the owner's trip goes on", async () => {
    expect((await server.call('POST', '/v1/trips', {key: server.keys.testPk, body: {externalId: 'o15', userId: 'ownerA'}})).status).toBe(200)
    const statement = 'must not name a pending, started, approaching or arrived trip of another user'
    // pending, assigned to ownerA who has not tracked yet
    await refused({...FIX, deviceId: 'oB', userId: 'ownerB', tripOptions: {externalId: 'o15'}}, 409, 'conflict', 'tripOptions.externalId', statement)
    const a = await track({...FIX, deviceId: 'oA', userId: 'ownerA'})
    expect(a.body.events.map((e: any) => e.type)).toEqual(['user.started_trip'])
    // started: by another userId, by a logged-out device, by a user ownerB already is
    await refused({...FIX, deviceId: 'oB', userId: 'ownerB', tripOptions: {externalId: 'o15'}}, 409, 'conflict', 'tripOptions.externalId', statement)
    await refused({...FIX, deviceId: 'oC', tripOptions: {externalId: 'o15'}}, 409, 'conflict', 'tripOptions.externalId', statement)
    expect((await track({...FIX, deviceId: 'oB', userId: 'ownerB'})).status).toBe(200)
    await refused({...FIX, deviceId: 'oB', userId: 'ownerB', tripOptions: {externalId: 'o15'}}, 409, 'conflict', 'tripOptions.externalId', statement)
    const next = await track({...FIX, latitude: 43.744, deviceId: 'oA', userId: 'ownerA', tripOptions: {externalId: 'o15'}})
    expect(next.body.events.map((e: any) => e.type)).toEqual(['user.updated_trip'])
    expect(next.body.user.trip).toMatchObject({externalId: 'o15', status: 'started'})
    const trip = (await server.call('GET', '/v1/trips/o15', {key: server.keys.testSk})).body.trip
    expect(trip).toMatchObject({userId: 'ownerA', user: {_id: a.body.user._id, userId: 'ownerA'}})
  })

  it("refuses to name a logged-out device's trip from another device; a trip without a user is the caller's", async () => {
    expect((await track({...FIX, deviceId: 'anon-1', tripOptions: {externalId: 'o16'}})).body.events.map((e: any) => e.type)).toEqual(['user.started_trip'])
    await refused({...FIX, deviceId: 'anon-2', tripOptions: {externalId: 'o16'}}, 409, 'conflict', 'tripOptions.externalId',
      'must not name a pending, started, approaching or arrived trip of another user')
    // the same device logging in keeps its user, and the trip
    expect((await track({...FIX, deviceId: 'anon-1', userId: 'anon-in', tripOptions: {externalId: 'o16'}})).body.events.map((e: any) => e.type)).toEqual(['user.updated_trip'])
    expect((await server.call('POST', '/v1/trips', {key: server.keys.testPk, body: {externalId: 'o17'}})).status).toBe(200)
    const taken = await track({...FIX, deviceId: 'anon-3', tripOptions: {externalId: 'o17'}})
    expect(taken.body.events.map((e: any) => e.type)).toEqual(['user.started_trip'])
    expect((await server.call('GET', '/v1/trips/o17', {key: server.keys.testSk})).body.trip.user).toMatchObject({_id: taken.body.user._id})
  })

  it("a trip without a userId taken by a logged-in user's tripOptions is that userId's from then on: read, listed, in events and webhooks", async () => {
    const receiver = await startReceiver()
    try {
      addWebhook(server.store, false, {url: receiver.url, types: ['user.started_trip']})
      expect((await server.call('POST', '/v1/trips', {key: server.keys.testPk, body: {externalId: 'o18'}})).body.trip.userId).toBeNull()
      const taken = await track({...FIX, deviceId: 'tk1', userId: 'taker', tripOptions: {externalId: 'o18'}})
      const owner = {_id: taken.body.user._id, userId: 'taker', deviceId: 'tk1'}
      expect(taken.body.events).toMatchObject([{type: 'user.started_trip', trip: {externalId: 'o18', userId: 'taker', user: owner}}])
      expect((await server.call('GET', '/v1/trips/o18', {key: server.keys.testSk})).body.trip).toMatchObject({userId: 'taker', user: owner})
      const listed = await server.call('GET', '/v1/trips?userId=taker', {key: server.keys.testSk})
      expect(listed.body.trips.map((t: any) => [t.externalId, t.userId])).toEqual([['o18', 'taker']])
      expect((await receiver.acked(1))[0].json.event.trip).toMatchObject({externalId: 'o18', userId: 'taker', user: owner})
    } finally {
      await receiver.close()
    }
    // the trip stays the userId's when its user is deleted: refused to another, the next user of that userId goes on with it
    expect((await server.call('DELETE', `/v1/users/${(await server.call('GET', '/v1/users/taker', {key: server.keys.testSk})).body.user._id}`, {key: server.keys.testSk})).status).toBe(200)
    await refused({...FIX, deviceId: 'tk2', userId: 'other', tripOptions: {externalId: 'o18'}}, 409, 'conflict', 'tripOptions.externalId',
      'must not name a pending, started, approaching or arrived trip of another user')
    const next = await track({...FIX, latitude: 43.744, deviceId: 'tk3', userId: 'taker'})
    expect(next.body.events).toMatchObject([{type: 'user.updated_trip', trip: {externalId: 'o18', userId: 'taker'}}])
  })

  it("a logged-out device's trip keeps userId null with its user shown, and takes the userId the device logs in with", async () => {
    expect((await server.call('POST', '/v1/trips', {key: server.keys.testPk, body: {externalId: 'o19'}})).status).toBe(200)
    const anon = await track({...FIX, deviceId: 'anon-4', tripOptions: {externalId: 'o19'}})
    const device = {_id: anon.body.user._id, userId: null, deviceId: 'anon-4'}
    expect(anon.body.events).toMatchObject([{type: 'user.started_trip', trip: {userId: null, user: device}}])
    expect((await server.call('GET', '/v1/trips/o19', {key: server.keys.testSk})).body.trip).toMatchObject({userId: null, user: device})
    // logging in keeps the device's user, and its trip goes on as the userId's
    const login = await track({...FIX, latitude: 43.744, deviceId: 'anon-4', userId: 'anon-4-in'})
    const owner = {...device, userId: 'anon-4-in'}
    expect(login.body.events).toMatchObject([{type: 'user.updated_trip', trip: {externalId: 'o19', userId: 'anon-4-in', user: owner}}])
    expect((await server.call('GET', '/v1/trips/o19', {key: server.keys.testSk})).body.trip).toMatchObject({userId: 'anon-4-in', user: owner})
    // a trip taken while logged out and canceled by a trip started after logging in is stopped as the userId's
    await track({...FIX, deviceId: 'anon-5', tripOptions: {externalId: 'o20'}})
    const next = await track({...FIX, latitude: 43.744, deviceId: 'anon-5', userId: 'anon-5-in', tripOptions: {externalId: 'o21'}})
    expect(next.body.events.map((e: any) => [e.type, e.trip.externalId, e.trip.userId])).toEqual([
      ['user.stopped_trip', 'o20', 'anon-5-in'], ['user.started_trip', 'o21', 'anon-5-in']])
    // a trip that ended while its device was logged out takes the userId at its next change
    await track({...FIX, deviceId: 'anon-6', tripOptions: {externalId: 'o22'}})
    const sk = {key: server.keys.testSk}
    await server.call('PATCH', '/v1/trips/o22/update', {...sk, body: {status: 'completed'}})
    await track({...FIX, latitude: 43.744, deviceId: 'anon-6', userId: 'anon-6-in'})
    expect((await server.call('GET', '/v1/trips/o22', sk)).body.trip.userId).toBeNull()
    const reopened = await server.call('PATCH', '/v1/trips/o22/update', {...sk, body: {status: 'started'}})
    expect(reopened.body.trip).toMatchObject({status: 'started', userId: 'anon-6-in'})
    const events = (await server.call('GET', '/v1/events?types=user.started_trip&userId=anon-6-in', sk)).body.events
    expect(events.map((e: any) => [e.trip.externalId, e.trip.userId])).toEqual([['o22', 'anon-6-in']])
  })
})

describe('track rate limit', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer({rateLimits: {track: 1, data: 100, search: 100, config: 100, geocode: 100, ipGeocode: 100, searchPlaces: 100, validate: 100, matrix: 100, routing: 100, staticMaps: 10}})
  })
  afterAll(() => server.stop())
  const send = (body: unknown, headers: Record<string, string> = {}, query = '') => server.call('POST', `/v1/track${query}`, {key: server.keys.testPk, body, headers})
  /** Waits until the rest of this wall-clock second leaves room for a few requests. */
  const secondStart = async () => {
    while (Date.now() % 1000 > 600) await new Promise((r) => setTimeout(r, 50))
  }

  it('counts per key and device: a second track of one device in the same second is 429, another device is not', async () => {
    await secondStart()
    const [a, b, c] = [await send({...MONACO, deviceId: 'one'}), await send({...MONACO, deviceId: 'one'}), await send({...MONACO, deviceId: 'two'})]
    expect([a.status, b.status, c.status]).toEqual([200, 429, 200])
    expect(b.headers.get('retry-after')).toBe('1')
  })

  it('counts a numeric deviceId as the device its decimal string names', async () => {
    await secondStart()
    const statuses = []
    for (const deviceId of [7001, 7002, 7003, 7001, '7002']) statuses.push((await send({...MONACO, deviceId})).status)
    expect(statuses).toEqual([200, 200, 200, 429, 429])
  })

  it('counts the device the track is stored under, whatever X-Radar-Device-Id or ?deviceId name', async () => {
    await secondStart()
    const statuses = [
      (await send({...MONACO, deviceId: 'victim-9'}, {'x-radar-device-id': 'spoof-1'})).status,
      (await send({...MONACO, deviceId: 'victim-9'}, {'x-radar-device-id': 'spoof-2'})).status,
      (await send({...MONACO, deviceId: 'victim-9'}, {}, '?deviceId=spoof-3')).status,
      // and a header naming a device over its limit does not refuse another device's track
      (await send({...MONACO, deviceId: 'other-9'}, {'x-radar-device-id': 'victim-9'})).status,
    ]
    expect(statuses).toEqual([200, 429, 429, 200])
  })

  it('answers 400, never 429, to bodies without a usable deviceId, however many come in a second', async () => {
    await secondStart()
    const bodies: unknown[] = [{...MONACO}, {...MONACO}, {...MONACO, deviceId: ''}, {...MONACO, deviceId: true}, {...MONACO, deviceId: 'x'.repeat(300)}, null, [MONACO], 'null', '[]']
    const answers = []
    for (const body of bodies) answers.push((await send(body)).status)
    expect(answers).toEqual(bodies.map(() => 400))
  })
})
