import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'
import {snapshot} from './helpers.js'

let s: TestServer

const ibeacon = {
  description: 'Front door', tag: 'store', externalId: 'door-1', type: 'ibeacon',
  uuid: 'B9407F30-F5F8-466E-AFF9-25556B57FE6D', major: '100', minor: '1', coordinates: [7.42, 43.73],
}
const eddystone = {
  description: 'Back door', tag: 'store', externalId: 'door-2', type: 'eddystone',
  uid: 'edd1ebeac04e5defa017', instance: '0123456789ab', coordinates: '[7.43,43.74]',
}

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  await s.stop()
})

const post = (body: unknown, key = s.keys.testSk) => s.call('POST', '/v1/beacons', {key, body})

describe('POST /v1/beacons', () => {
  it('creates an ibeacon and returns the Beacon resource', async () => {
    const r = await post({...ibeacon, metadata: JSON.stringify({floor: 1, open: true})})
    expect(r.status).toBe(200)
    expect(r.body.meta).toEqual({code: 200})
    const b = r.body.beacon
    expect(b).toEqual({
      _id: expect.stringMatching(/^[0-9a-zA-Z]{24}$/), createdAt: expect.any(String), updatedAt: b.createdAt, live: false,
      description: 'Front door', tag: 'store', externalId: 'door-1', type: 'ibeacon',
      uuid: ibeacon.uuid, major: '100', minor: '1',
      geometry: {type: 'Point', coordinates: [7.42, 43.73]}, enabled: true, metadata: {floor: 1, open: true},
    })
  })

  it('creates an eddystone from a JSON-string coordinates and a form body', async () => {
    const form = new URLSearchParams({...eddystone, enabled: 'false', metadata: '{"zone":"back"}'}).toString()
    const r = await s.call('POST', '/v1/beacons', {key: s.keys.testSk, body: form, headers: {'content-type': 'application/x-www-form-urlencoded'}})
    expect(r.status).toBe(200)
    expect(r.body.beacon).toMatchObject({type: 'eddystone', uid: eddystone.uid, instance: eddystone.instance, enabled: false,
      geometry: {type: 'Point', coordinates: [7.43, 43.74]}, metadata: {zone: 'back'}})
    expect(r.body.beacon.uuid).toBeUndefined()
  })

  it('answers 409 for an existing tag and externalId and changes nothing', async () => {
    const before = await snapshot(s, 'beacons')
    const r = await post({...ibeacon, description: 'Other'})
    expect(r.status).toBe(409)
    expect(r.body.meta).toMatchObject({code: 409, param: 'externalId'})
    expect(r.body.meta.message).toMatch(/^externalId: /)
    expect(await snapshot(s, 'beacons')).toEqual(before)
  })

  it('allows the same tag and externalId in the other environment', async () => {
    const r = await post(ibeacon, s.keys.liveSk)
    expect(r.status).toBe(200)
    expect(r.body.beacon.live).toBe(true)
  })

  it('refuses every invalid field with its param and changes nothing', async () => {
    const before = await snapshot(s, 'beacons')
    const fresh = {...ibeacon, externalId: 'new'}
    const cases: Array<[Record<string, unknown>, string]> = [
      [{...fresh, description: undefined}, 'description'],
      [{...fresh, tag: undefined}, 'tag'],
      [{...fresh, externalId: undefined}, 'externalId'],
      [{...fresh, type: undefined}, 'type'],
      [{...fresh, type: 'altbeacon'}, 'type'],
      [{...fresh, uuid: undefined}, 'uuid'],
      [{...fresh, major: undefined}, 'major'],
      [{...fresh, minor: undefined}, 'minor'],
      [{...eddystone, externalId: 'new', uid: undefined}, 'uid'],
      [{...eddystone, externalId: 'new', instance: undefined}, 'instance'],
      [{...fresh, coordinates: undefined}, 'coordinates'],
      [{...fresh, coordinates: [200, 43]}, 'coordinates'],
      [{...fresh, coordinates: [7.4, 91]}, 'coordinates'],
      [{...fresh, coordinates: '7.4,43.7'}, 'coordinates'],
      [{...fresh, coordinates: [7.4]}, 'coordinates'],
      [{...fresh, enabled: 'maybe'}, 'enabled'],
      [{...fresh, metadata: 'not json'}, 'metadata'],
      [{...fresh, metadata: {nested: {a: 1}}}, 'metadata.nested'],
      [{...fresh, metadata: Object.fromEntries(Array.from({length: 17}, (_, i) => [`k${i}`, i]))}, 'metadata'],
    ]
    for (const [body, param] of cases) {
      const r = await post(body)
      expect(r.status, param).toBe(400)
      expect(r.body.meta.param, JSON.stringify(body)).toBe(param)
      expect(r.body.meta.message).toMatch(new RegExp(`^${param.replace('.', '\\.')}: `))
    }
    const sixteen = await post({...fresh, externalId: 'sixteen', metadata: Object.fromEntries(Array.from({length: 16}, (_, i) => [`k${i}`, i]))})
    expect(sixteen.status).toBe(200)
    await s.call('DELETE', '/v1/beacons/store/sixteen', {key: s.keys.testSk})
    expect(await snapshot(s, 'beacons')).toEqual(before)
  })

  it('needs a secret key', async () => {
    expect((await post(ibeacon, s.keys.testPk)).status).toBe(403)
  })
})

describe('PUT /v1/beacons', () => {
  it('creates, then updates, by tag and externalId (keeping _id and createdAt)', async () => {
    const body = {description: 'Till', type: 'ibeacon', uuid: ibeacon.uuid, major: 7, minor: 8, coordinates: [7.44, 43.75]}
    const created = await s.call('PUT', '/v1/beacons/till/t-1', {key: s.keys.testSk, body})
    expect(created.status).toBe(200)
    expect(created.body.beacon).toMatchObject({tag: 'till', externalId: 't-1', major: '7', minor: '8', enabled: true})
    const updated = await s.call('PUT', '/v1/beacons/till/t-1', {key: s.keys.testSk, body: {...body, description: 'Till 2', enabled: false}})
    expect(updated.body.beacon).toMatchObject({_id: created.body.beacon._id, createdAt: created.body.beacon.createdAt, description: 'Till 2', enabled: false})
    expect(updated.body.beacon.updatedAt > created.body.beacon.updatedAt).toBe(true)
  })

  it('rotates identifiers and type by _id and clears the old ones', async () => {
    const created = await post({...ibeacon, externalId: 'rotate'})
    const id = created.body.beacon._id
    const r = await s.call('PUT', `/v1/beacons/${id}`, {key: s.keys.testSk, body: {description: 'Now eddystone', type: 'eddystone', uid: 'u', instance: 'i', coordinates: [1, 2]}})
    expect(r.status).toBe(200)
    expect(r.body.beacon).toMatchObject({_id: id, tag: 'store', externalId: 'rotate', type: 'eddystone', uid: 'u', instance: 'i'})
    const row = await s.store.db.selectFrom('beacons').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect([row.uuid, row.major, row.minor]).toEqual([null, null, null])
  })

  it('answers 404 for an unknown _id, 409 when moving onto a taken tag+externalId, 400 for missing fields; nothing changes', async () => {
    const created = await post({...ibeacon, externalId: 'mover'})
    const before = await snapshot(s, 'beacons')
    const body = {description: 'x', type: 'ibeacon', uuid: 'u', major: '1', minor: '2', coordinates: [1, 2]}
    const missing = await s.call('PUT', '/v1/beacons/000000000000000000000000', {key: s.keys.testSk, body})
    expect(missing.status).toBe(404)
    expect(missing.body).toEqual({meta: {code: 404, error: 'not_found', message: 'beacon not found'}})
    const clash = await s.call('PUT', `/v1/beacons/${created.body.beacon._id}`, {key: s.keys.testSk, body: {...body, externalId: 'door-1'}})
    expect(clash.status).toBe(409)
    expect(clash.body.meta.param).toBe('externalId')
    for (const field of ['description', 'type', 'coordinates']) {
      const r = await s.call('PUT', '/v1/beacons/till/t-9', {key: s.keys.testSk, body: {...body, [field]: undefined}})
      expect(r.status).toBe(400)
      expect(r.body.meta.param).toBe(field)
    }
    const otherEnv = await s.call('PUT', `/v1/beacons/${created.body.beacon._id}`, {key: s.keys.liveSk, body})
    expect(otherEnv.status).toBe(404)
    expect(await snapshot(s, 'beacons')).toEqual(before)
  })
})

describe('GET and DELETE /v1/beacons', () => {
  it('gets by _id and by tag/externalId; 404 otherwise and across environments', async () => {
    const byTag = await s.call('GET', '/v1/beacons/store/door-1', {key: s.keys.testSk})
    expect(byTag.status).toBe(200)
    const byId = await s.call('GET', `/v1/beacons/${byTag.body.beacon._id}`, {key: s.keys.testSk})
    expect(byId.body).toEqual(byTag.body)
    expect((await s.call('GET', '/v1/beacons/store/nope', {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('GET', `/v1/beacons/${byTag.body.beacon._id}`, {key: s.keys.liveSk})).status).toBe(404)
    expect((await s.call('GET', '/v1/beacons/store/door-1', {key: s.keys.liveSk})).body.beacon.live).toBe(true)
  })

  it('lists newest createdAt first with tag, externalId, cursors, limit and hasMore', async () => {
    const all = await s.call('GET', '/v1/beacons', {key: s.keys.testSk})
    expect(all.status).toBe(200)
    expect(all.body.meta).toEqual({code: 200, hasMore: false})
    const created = all.body.beacons.map((b: any) => b.createdAt)
    expect(created).toEqual([...created].sort().reverse())
    expect(all.body.beacons.every((b: any) => b.live === false)).toBe(true)

    const tag = await s.call('GET', '/v1/beacons?tag=till', {key: s.keys.testSk})
    expect(tag.body.beacons.map((b: any) => b.externalId)).toEqual(['t-1'])
    const ext = await s.call('GET', '/v1/beacons?tag=store&externalId=door-2', {key: s.keys.testSk})
    expect(ext.body.beacons.map((b: any) => b.description)).toEqual(['Back door'])

    const first = await s.call('GET', '/v1/beacons?limit=2', {key: s.keys.testSk})
    expect(first.body.beacons).toHaveLength(2)
    expect(first.body.meta.hasMore).toBe(true)
    const next = await s.call('GET', `/v1/beacons?limit=1000&createdBefore=${encodeURIComponent(first.body.beacons[1].createdAt)}`, {key: s.keys.testSk})
    expect([...first.body.beacons, ...next.body.beacons].map((b: any) => b._id)).toEqual(all.body.beacons.map((b: any) => b._id))
    const after = await s.call('GET', `/v1/beacons?createdAfter=${encodeURIComponent(first.body.beacons[1].createdAt)}`, {key: s.keys.testSk})
    expect(after.body.beacons.map((b: any) => b._id)).toEqual([first.body.beacons[0]._id])

    const live = await s.call('GET', '/v1/beacons', {key: s.keys.liveSk})
    expect(live.body.beacons).toHaveLength(1)
    for (const [q, param] of [['limit=0', 'limit'], ['limit=1001', 'limit'], ['createdBefore=no', 'createdBefore'], ['createdAfter=no', 'createdAfter']]) {
      const r = await s.call('GET', `/v1/beacons?${q}`, {key: s.keys.testSk})
      expect(r.status).toBe(400)
      expect(r.body.meta.param).toBe(param)
    }
  })

  it('deletes by both forms; 404 and no change for unknown or other-environment beacons', async () => {
    const a = await post({...ibeacon, externalId: 'del-a'})
    await post({...ibeacon, externalId: 'del-b'})
    const before = await snapshot(s, 'beacons')
    expect((await s.call('DELETE', `/v1/beacons/${a.body.beacon._id}`, {key: s.keys.liveSk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/beacons/store/del-b', {key: s.keys.liveSk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/beacons/store/none', {key: s.keys.testSk})).status).toBe(404)
    expect(await snapshot(s, 'beacons')).toEqual(before)
    const byId = await s.call('DELETE', `/v1/beacons/${a.body.beacon._id}`, {key: s.keys.testSk})
    expect(byId.body).toEqual({meta: {code: 200}})
    expect((await s.call('DELETE', '/v1/beacons/store/del-b', {key: s.keys.testSk})).status).toBe(200)
    expect((await s.call('GET', '/v1/beacons/store/del-b', {key: s.keys.testSk})).status).toBe(404)
    expect((await s.call('GET', `/v1/beacons/${a.body.beacon._id}`, {key: s.keys.testSk})).status).toBe(404)
  })
})
