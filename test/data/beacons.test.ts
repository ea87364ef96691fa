import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectInvalidParameter, startTestServer, type TestServer} from '../helpers.js'
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
      uuid: ibeacon.uuid.toLowerCase(), major: '100', minor: '1',
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

  it('refuses identifiers not of their form, on POST and both PUTs, naming the param; nothing is stored', async () => {
    const before = await snapshot(s, 'beacons')
    const fresh = {...ibeacon, externalId: 'bad-id'}
    const edd = {...eddystone, externalId: 'bad-id'}
    const cases: Array<[Record<string, unknown>, string, string]> = [
      [{...fresh, uuid: 'door-1'}, 'uuid', 'an iBeacon UUID: 32 hex digits, as 8-4-4-4-12 (f7826da6-4fa2-4e98-8024-bc5b71e0893e)'],
      [{...fresh, uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6'}, 'uuid', 'an iBeacon UUID'],
      [{...fresh, uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6dd'}, 'uuid', 'an iBeacon UUID'],
      [{...fresh, uuid: 'b9407f3-0f5f8-466e-aff9-25556b57fe6d'}, 'uuid', 'an iBeacon UUID'],
      [{...fresh, uuid: 'g9407f30-f5f8-466e-aff9-25556b57fe6d'}, 'uuid', 'an iBeacon UUID'],
      [{...fresh, uuid: '{b9407f30-f5f8-466e-aff9-25556b57fe6d}'}, 'uuid', 'an iBeacon UUID'],
      [{...fresh, major: '65536'}, 'major', 'an integer from 0 to 65535'],
      [{...fresh, major: -1}, 'major', 'an integer from 0 to 65535'],
      [{...fresh, major: 1.5}, 'major', 'an integer from 0 to 65535'],
      [{...fresh, major: 'one'}, 'major', 'an integer from 0 to 65535'],
      [{...fresh, minor: '0x10'}, 'minor', 'an integer from 0 to 65535'],
      [{...fresh, minor: ' 1'}, 'minor', 'an integer from 0 to 65535'],
      [{...edd, uid: 'edd1ebeac04e5defa0'}, 'uid', 'an Eddystone namespace: 10 bytes as 20 hex digits (edd1ebeac04e5defa017)'],
      [{...edd, uid: 'edd1ebeac04e5defa017aa'}, 'uid', 'an Eddystone namespace'],
      [{...edd, uid: 'zdd1ebeac04e5defa017'}, 'uid', 'an Eddystone namespace'],
      [{...edd, instance: '0123456789'}, 'instance', 'an Eddystone instance: 6 bytes as 12 hex digits (0123456789ab)'],
      [{...edd, instance: '0123456789abc'}, 'instance', 'an Eddystone instance'],
    ]
    for (const [body, param, statement] of cases) {
      const {tag: _tag, externalId: _externalId, ...content} = body
      for (const [method, path] of [['POST', '/v1/beacons'], ['PUT', '/v1/beacons/store/door-1'], ['PUT', '/v1/beacons/store/bad-id']]) {
        const r = await s.call(method, path, {key: s.keys.testSk, body: method === 'POST' ? body : content})
        expectInvalidParameter(r, param)
        expect(r.body.meta.message, `${method} ${path} ${JSON.stringify(body)}`).toMatch(new RegExp(`^${param}: must be ${statement.replace(/[()]/g, '\\$&')}`))
      }
    }
    expect(await snapshot(s, 'beacons')).toEqual(before)
  })

  it('stores each identifier in one form: uuid lower case hyphenated, uid and instance lower-case hex without 0x, major/minor without leading zeros', async () => {
    const r = await post({...ibeacon, externalId: 'forms-1', uuid: 'B9407F30F5F8466EAFF925556B57FE6D', major: '007', minor: 65535})
    expect(r.status).toBe(200)
    expect(r.body.beacon).toMatchObject({uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '7', minor: '65535'})
    const e = await post({...eddystone, externalId: 'forms-2', uid: '0xEDD1EBEAC04E5DEFA017', instance: '0X0123456789AB'})
    expect(e.body.beacon).toMatchObject({uid: 'edd1ebeac04e5defa017', instance: '0123456789ab'})
    const rows = await s.store.db.selectFrom('beacons').select(['uuid', 'major', 'minor', 'uid', 'instance'])
      .where('id', 'in', [r.body.beacon._id, e.body.beacon._id]).orderBy('external_id').execute()
    expect(rows).toEqual([
      {uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '7', minor: '65535', uid: null, instance: null},
      {uuid: null, major: null, minor: null, uid: 'edd1ebeac04e5defa017', instance: '0123456789ab'},
    ])
    // the other type's identifiers are dropped, not checked
    const other = await post({...eddystone, externalId: 'forms-3', uuid: 'not a uuid', major: 'x'})
    expect(other.status).toBe(200)
    expect(other.body.beacon.uuid).toBeUndefined()
    for (const id of ['forms-1', 'forms-2', 'forms-3']) await s.call('DELETE', `/v1/beacons/store/${id}`, {key: s.keys.testSk})
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
    const r = await s.call('PUT', `/v1/beacons/${id}`, {key: s.keys.testSk, body: {description: 'Now eddystone', type: 'eddystone', uid: eddystone.uid, instance: eddystone.instance, coordinates: [1, 2]}})
    expect(r.status).toBe(200)
    expect(r.body.beacon).toMatchObject({_id: id, tag: 'store', externalId: 'rotate', type: 'eddystone', uid: eddystone.uid, instance: eddystone.instance})
    const row = await s.store.db.selectFrom('beacons').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
    expect([row.uuid, row.major, row.minor]).toEqual([null, null, null])
  })

  it('answers 404 for an unknown _id, 409 when moving onto a taken tag+externalId, 400 for missing fields; nothing changes', async () => {
    const created = await post({...ibeacon, externalId: 'mover'})
    const before = await snapshot(s, 'beacons')
    const body = {description: 'x', type: 'ibeacon', uuid: ibeacon.uuid, major: '1', minor: '2', coordinates: [1, 2]}
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
