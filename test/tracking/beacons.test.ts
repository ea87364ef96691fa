import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {setSettings} from '../../src/project/settings.js'
import {startTestServer, type TestServer} from '../helpers.js'

const MONACO = {latitude: 43.735, longitude: 7.42}
// Eddystone-UID namespaces (10 bytes) and an instance (6 bytes)
const [ABC, ONE, THREE] = ['abc0000000000000000a', '0ae00000000000000001', '0ae00000000000000003']
const INSTANCE = '0000000000de'

/** A beacon disabled or deleted generates no events (spec): a user ranging it leaves it silently, as a geofence. */
describe('beacons disabled or deleted while a user ranges them', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
    await setSettings(server.store, false, {'beacons.enabled': true})
  })
  afterAll(() => server.stop())

  const sk = () => server.keys.testSk
  const put = (externalId: string, uid: string, body: Record<string, unknown> = {}) => server.call('PUT', `/v1/beacons/bt/${externalId}`, {key: sk(),
    body: {description: externalId, type: 'eddystone', uid, instance: INSTANCE, coordinates: [7.42, 43.735], ...body}})
  const track = (deviceId: string, beacons?: unknown[]) => server.call('POST', '/v1/track', {key: server.keys.testPk, body: {...MONACO, deviceId, beacons}})
  const types = (res: {body: any}) => res.body.events.map((e: any) => e.type)
  const ids = (user: any) => user.beacons.map((b: any) => b.externalId)
  const read = async (id: string) => (await server.call('GET', `/v1/users/${id}`, {key: sk()})).body.user

  it('disabled: no exit, left out of the answer and reads; enabled again and ranged, a fresh entry', async () => {
    await put('b2', ABC)
    const ranging = [{type: 'eddystone', uid: ABC, instance: INSTANCE}]
    const entered = await track('disabling', ranging)
    expect(types(entered)).toEqual(['user.entered_beacon'])
    const id = entered.body.user._id
    expect(ids(await read(id))).toEqual(['b2'])

    expect((await put('b2', ABC, {enabled: false})).status).toBe(200)
    expect(ids(await read(id))).toEqual([])
    const after = await track('disabling', ranging)
    expect(types(after)).toEqual([])
    expect(ids(after.body.user)).toEqual([])
    expect(ids(await read(id))).toEqual([])

    await put('b2', ABC, {enabled: true})
    const again = await track('disabling', ranging)
    expect(types(again)).toEqual(['user.entered_beacon'])
    expect(again.body.events[0].beacon).toMatchObject({externalId: 'b2', enabled: true})
    expect(ids(again.body.user)).toEqual(['b2'])
    expect(await read(id)).toEqual(again.body.user)
  })

  it('deleted: no exit, left out of answers, reads and the user a conversion embeds; the other beacon stays, as it is now', async () => {
    await put('b1', ONE)
    await put('b3', THREE)
    const both = [{type: 'eddystone', uid: ONE, instance: INSTANCE}, {type: 'eddystone', uid: THREE, instance: INSTANCE}]
    const entered = await track('deleting', both)
    expect(types(entered)).toEqual(['user.entered_beacon', 'user.entered_beacon'])
    const id = entered.body.user._id

    expect((await server.call('DELETE', '/v1/beacons/bt/b1', {key: sk()})).status).toBe(200)
    await put('b3', THREE, {description: 'edited'})
    const user = await read(id)
    expect(ids(user)).toEqual(['b3'])
    expect(user.beacons[0].description).toBe('edited')
    const conversion = await server.call('POST', '/v1/events', {key: server.keys.testPk, body: {name: 'visit', deviceId: 'deleting'}})
    expect(ids(conversion.body.event.user)).toEqual(['b3'])

    // a track without `beacons` changes nothing, but answers the beacons as they are now
    const quiet = await track('deleting')
    expect(types(quiet)).toEqual([])
    expect(ids(quiet.body.user)).toEqual(['b3'])
    const gone = await track('deleting', [])
    expect(types(gone)).toEqual(['user.exited_beacon'])
    expect(gone.body.events[0].beacon).toMatchObject({externalId: 'b3', description: 'edited'})
    expect(ids(gone.body.user)).toEqual([])
  })

  it('a list of users shows each one\'s beacons as they are now, as its own read does, beacons shared or not, in their order', async () => {
    const [SH1, SH2, SH3] = ['5a0000000000000000a1', '5a0000000000000000a2', '5a0000000000000000a3']
    for (const [externalId, uid] of [['s1', SH1], ['s2', SH2], ['s3', SH3]]) expect((await put(externalId, uid)).status).toBe(200)
    const ranged = (...uids: string[]) => uids.map((uid) => ({type: 'eddystone', uid, instance: INSTANCE}))
    await track('list-a', ranged(SH1, SH2))
    await track('list-b', ranged(SH3, SH1))
    await track('list-c', ranged(SH2))
    await put('s2', SH2, {description: 'edited'})
    await put('s3', SH3, {enabled: false})
    const list = (await server.call('GET', '/v1/users?limit=100', {key: sk()})).body.users
    const byDevice = Object.fromEntries(list.map((user: any) => [user.deviceId, user]))
    expect([ids(byDevice['list-a']), ids(byDevice['list-b']), ids(byDevice['list-c'])]).toEqual([['s1', 's2'], ['s1'], ['s2']])
    expect(byDevice['list-c'].beacons[0].description).toBe('edited')
    for (const user of list) expect(user, user.deviceId).toEqual(await read(user._id))
  })
})

/**
 * Spec: project settings can hold iBeacon UUIDs and Eddystone UIDs so the SDK ranges by uuid or
 * uid only, regardless of coordinates; the SDKs read them from `meta.settings.beacons` of
 * `GET /v1/search/beacons` (`uuids`, `uids`).
 */
describe('ranging by the configured iBeacon UUIDs and Eddystone UIDs', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
    await setSettings(server.store, false, {'beacons.enabled': true})
  })
  afterAll(() => server.stop())

  const UUID = 'f7826da6-4fa2-4e98-8024-bc5b71e0893e'
  const NAMESPACE = 'edd1ebeac04e5defa017'
  const search = async (key: string) => (await server.call('GET', '/v1/search/beacons?near=43.735,7.42', {key})).body

  it('the SDK reads them with the nearby beacons, per environment; a beacon far away ranged by them gives events', async () => {
    expect((await search(server.keys.testPk)).meta).toEqual({code: 200, settings: {beacons: {uuids: [], uids: []}}})
    await setSettings(server.store, false, {'beacons.uuids': [UUID.toUpperCase()], 'beacons.uids': [NAMESPACE]})
    const test = await search(server.keys.testPk)
    expect(test.meta.settings.beacons).toEqual({uuids: [UUID], uids: [NAMESPACE]})
    expect((await search(server.keys.livePk)).meta.settings.beacons).toEqual({uuids: [], uids: []})

    // registered 300 km away: not among the nearby beacons, but ranged by its UUID
    const far = {description: 'far', type: 'ibeacon', uuid: UUID, major: '1', minor: '2', coordinates: [2.35, 48.85]}
    expect((await server.call('PUT', '/v1/beacons/store/paris', {key: server.keys.testSk, body: far})).status).toBe(200)
    expect(test.beacons).toEqual([])
    const ranged = await server.call('POST', '/v1/track', {key: server.keys.testPk, body: {...MONACO, deviceId: 'by-uuid',
      beacons: [{type: 'ibeacon', uuid: UUID.toUpperCase(), major: '1', minor: '2'}]}})
    expect(ranged.body.events.map((e: any) => [e.type, e.beacon.externalId])).toEqual([['user.entered_beacon', 'paris']])
  })
})

/**
 * A beacon matches however its identifiers were spelled when registered: both sides are compared in
 * the one stored form (lower case, the UUID hyphenated, no 0x, no leading zeros), as the SDKs report
 * them (iOS and Android: the UUID hyphenated, upper or lower case).
 */
describe('ranged identities match beacons registered in another spelling', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
    await setSettings(server.store, false, {'beacons.enabled': true})
  })
  afterAll(() => server.stop())

  const put = (externalId: string, body: Record<string, unknown>) =>
    server.call('PUT', `/v1/beacons/spelt/${externalId}`, {key: server.keys.testSk, body: {description: externalId, coordinates: [7.42, 43.735], ...body}})
  const track = (deviceId: string, beacons: unknown[]) => server.call('POST', '/v1/track', {key: server.keys.testPk, body: {...MONACO, deviceId, beacons}})
  const entered = (res: {body: any}) => res.body.events.map((e: any) => `${e.type} ${e.beacon.externalId}`)

  it('an iBeacon registered upper case without hyphens, ranged lower case hyphenated (Android) or upper case (iOS)', async () => {
    expect((await put('ib', {type: 'ibeacon', uuid: 'B9407F30F5F8466EAFF925556B57FE6D', major: '0100', minor: 1})).status).toBe(200)
    const android = await track('android', [{type: 'ibeacon', uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: 100, minor: 1}])
    expect(entered(android)).toEqual(['user.entered_beacon ib'])
    const ios = await track('ios', [{type: 'ibeacon', uuid: 'B9407F30-F5F8-466E-AFF9-25556B57FE6D', major: '100', minor: '1'}])
    expect(entered(ios)).toEqual(['user.entered_beacon ib'])
  })

  it('an Eddystone registered with 0x and upper case, ranged as bare lower-case hex; an identity not of its form matches nothing', async () => {
    expect((await put('ed', {type: 'eddystone', uid: '0xEDD1EBEAC04E5DEFA017', instance: '0x0123456789AB'})).status).toBe(200)
    const res = await track('eddy', [{type: 'eddystone', uid: 'edd1ebeac04e5defa017', instance: '0123456789ab'}])
    expect(entered(res)).toEqual(['user.entered_beacon ed'])
    // a ranged identity not of its form is taken and matches nothing: a track is never refused for it
    const odd = await track('odd', [{type: 'ibeacon', uuid: 'not-a-uuid', major: 1, minor: 2}, {type: 'eddystone', uid: 'xyz', instance: '1'}])
    expect(odd.status).toBe(200)
    expect(odd.body.events).toEqual([])
  })
})
