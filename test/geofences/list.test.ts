import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {createGeofence} from '../../src/geofences/store.js'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {geofenceJson, geofenceJsonText} from '../../src/geofences/json.js'
import {startTestServer, type TestServer} from '../helpers.js'

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
const ids = (body: {geofences: Array<{_id: string}>}) => body.geofences.map((g) => g._id)
const list = async (query: string, key = sk) => {
  const r = await s.call('GET', `/v1/geofences${query}`, {key})
  expect(r.status, JSON.stringify(r.body.meta)).toBe(200)
  return r.body
}

describe('GET /v1/geofences filters', () => {
  const made: Record<string, {_id: string; createdAt: string; updatedAt: string}> = {}

  beforeAll(async () => {
    const bodies: Array<[string, string, Record<string, unknown>]> = [
      ['shops', 'a', {metadata: {color: 'red', floors: 2, open: true}}],
      ['shops', 'b', {metadata: {color: 'blue', floors: '2', open: false}}],
      ['shops', 'c', {metadata: {color: 'red', floors: 2.5, open: 'true'}}],
      ['depots', 'a', {}],
    ]
    for (const [tag, externalId, extra] of bodies) {
      made[`${tag}/${externalId}`] = (await s.call('PUT', `/v1/geofences/${tag}/${externalId}`, {key: sk, body: circle(extra)})).body.geofence
    }
  })

  it('lists newest updatedAt first with meta.hasMore, and an update moves a geofence to the top', async () => {
    const body = await list('')
    expect(body.meta).toEqual({code: 200, hasMore: false})
    expect(ids(body)).toEqual([made['depots/a']._id, made['shops/c']._id, made['shops/b']._id, made['shops/a']._id])
    await s.call('PUT', '/v1/geofences/shops/a', {key: sk, body: circle({metadata: {color: 'red', floors: 2, open: true}})})
    expect(ids(await list(''))[0]).toBe(made['shops/a']._id)
  })

  it('lists each geofence exactly as GET returns it, even with tricky strings', async () => {
    const tricky = circle({description: 'say "geometry":"\u0000geometry"', metadata: {geometry: '\u0000geometry', '"geometry"': 1}})
    await s.call('PUT', '/v1/geofences/tricky/one', {key: sk, body: tricky})
    for (const g of (await list('')).geofences) {
      expect((await s.call('GET', `/v1/geofences/${g._id}`, {key: sk})).body.geofence).toEqual(g)
    }
    const [g] = (await list('?tag=tricky')).geofences
    expect(g.geometry.type).toBe('Polygon')
    expect(g.metadata).toEqual({geometry: '\u0000geometry', '"geometry"': 1})
    expect(g.description).toBe('say "geometry":"\u0000geometry"')
    const row = await s.store.db.selectFrom('geofences').selectAll().where('id', '=', g._id).executeTakeFirstOrThrow()
    expect(JSON.parse(geofenceJsonText(row))).toEqual(geofenceJson(row))
    expect(geofenceJson(row)).toEqual(g)
    await s.call('DELETE', '/v1/geofences/tricky/one', {key: sk})
  })

  it('filters by tag and externalId', async () => {
    expect(ids(await list('?tag=shops')).sort()).toEqual([made['shops/a']._id, made['shops/b']._id, made['shops/c']._id].sort())
    expect(ids(await list('?externalId=a')).sort()).toEqual([made['shops/a']._id, made['depots/a']._id].sort())
    expect(ids(await list('?tag=depots&externalId=a'))).toEqual([made['depots/a']._id])
    expect(ids(await list('?tag=nope'))).toEqual([])
  })

  it('filters by metadata[key], inferring true/false and numbers', async () => {
    const match = async (query: string) => (await list(`?tag=shops&${query}`)).geofences.map((g: {externalId: string}) => g.externalId).sort()
    expect(await match('metadata[color]=red')).toEqual(['a', 'c'])
    expect(await match('metadata[color]=red&metadata[floors]=2')).toEqual(['a'])
    // a number matches numbers and the same text; "2" stored as a string matches too
    expect(await match('metadata[floors]=2')).toEqual(['a', 'b'])
    expect(await match('metadata[floors]=2.5')).toEqual(['c'])
    // true matches the boolean and the string "true"
    expect(await match('metadata[open]=true')).toEqual(['a', 'c'])
    expect(await match('metadata[open]=false')).toEqual(['b'])
    expect(await match('metadata[missing]=x')).toEqual([])
    expect(await match('metadata[color]=RED')).toEqual([])
    // a malformed metadata value is ignored (compat)
    expect(await match('metadata=red')).toEqual(['a', 'b', 'c'])
  })

  it('filters by createdBefore/After and updatedBefore/After (exclusive)', async () => {
    const b = made['shops/b']
    expect(ids(await list(`?tag=shops&createdBefore=${b.createdAt}`))).toEqual([made['shops/a']._id])
    expect(ids(await list(`?tag=shops&createdAfter=${b.createdAt}`))).toEqual([made['shops/c']._id])
    expect(ids(await list(`?tag=shops&updatedAfter=${b.updatedAt}`))).toEqual([made['shops/a']._id, made['shops/c']._id])
    expect(ids(await list(`?tag=shops&updatedBefore=${made['shops/c'].updatedAt}`))).toEqual([b._id])
    expect(ids(await list(`?createdAfter=${encodeURIComponent('2100-01-01')}`))).toEqual([])
    expect(ids(await list(`?updatedBefore=${encodeURIComponent('2000-01-01T00:00:00+02:00')}`))).toEqual([])
  })

  it('takes limit 1 to 1000, default 100', async () => {
    const one = await list('?limit=1')
    expect(one.geofences).toHaveLength(1)
    expect(one.meta.hasMore).toBe(true)
    expect((await list('?limit=1000')).geofences).toHaveLength(4)
    for (const [query, param] of [['?limit=0', 'limit'], ['?limit=1001', 'limit'], ['?limit=ten', 'limit'], ['?limit=1.5', 'limit'],
      ['?createdBefore=yesterday', 'createdBefore'], ['?createdAfter=x', 'createdAfter'], ['?updatedBefore=x', 'updatedBefore'], ['?updatedAfter=x', 'updatedAfter'],
      ['?tag[]=a', 'tag'], ['?externalId[x]=a', 'externalId']]) {
      const r = await s.call('GET', `/v1/geofences${query}`, {key: sk})
      expect(r.status, query).toBe(400)
      expect(r.body.meta).toMatchObject({code: 400, param})
      expect(r.body.meta.message.startsWith(`${param}: `)).toBe(true)
    }
  })
})

describe('test and live environments', () => {
  it('keeps the same tag+externalId once in each environment, each key seeing only its own', async () => {
    const t = await s.call('PUT', '/v1/geofences/env/same', {key: sk, body: circle({description: 'test one'})})
    const l = await s.call('PUT', '/v1/geofences/env/same', {key: s.keys.liveSk, body: circle({description: 'live one'})})
    expect(t.body.geofence.live).toBe(false)
    expect(l.body.geofence.live).toBe(true)
    expect(l.body.geofence._id).not.toBe(t.body.geofence._id)
    expect((await s.call('GET', '/v1/geofences/env/same', {key: sk})).body.geofence.description).toBe('test one')
    expect((await s.call('GET', '/v1/geofences/env/same', {key: s.keys.liveSk})).body.geofence.description).toBe('live one')
    const live = await list('', s.keys.liveSk)
    expect(ids(live)).toEqual([l.body.geofence._id])
    expect(ids(await list('')).includes(l.body.geofence._id)).toBe(false)
    // POST in live with the pair that exists only in test is no conflict there
    const p = await s.call('POST', '/v1/geofences', {key: s.keys.liveSk, body: circle({tag: 'env', externalId: 'test-only'})})
    expect(p.status).toBe(200)
  })

  it('a test key cannot read, update or delete a live geofence', async () => {
    const live = (await s.call('PUT', '/v1/geofences/env/live-only', {key: s.keys.liveSk, body: circle()})).body.geofence
    const before = s.store.sqlite.prepare('SELECT * FROM geofences ORDER BY id').all()
    expect((await s.call('GET', `/v1/geofences/${live._id}`, {key: sk})).status).toBe(404)
    expect((await s.call('GET', '/v1/geofences/env/live-only', {key: sk})).status).toBe(404)
    expect((await s.call('PUT', `/v1/geofences/${live._id}`, {key: sk, body: circle({description: 'hijacked'})})).status).toBe(404)
    expect((await s.call('DELETE', `/v1/geofences/${live._id}`, {key: sk})).status).toBe(404)
    expect((await s.call('DELETE', '/v1/geofences/env/live-only', {key: sk})).status).toBe(404)
    expect((await s.call('GET', '/v1/geofences/env/live-only/users', {key: sk})).status).toBe(404)
    expect(s.store.sqlite.prepare('SELECT * FROM geofences ORDER BY id').all()).toEqual(before)
    expect((await s.call('GET', `/v1/geofences/${live._id}`, {key: s.keys.liveSk})).body.geofence.description).toBe('Store')
  })
})

describe('paging through 2,500 geofences', () => {
  it('returns each exactly once with updatedBefore cursors, at limit 1000 and at limit 333', async () => {
    const paging = await startTestServer()
    try {
      const input = geofenceInputSchema.parse(circle())
      const created = new Set<string>()
      for (let i = 0; i < 2500; i++) created.add((await createGeofence(paging.store, false, {...input, tag: 'bulk', externalId: String(i)})).id)
      await createGeofence(paging.store, true, input) // a live one that must never show up
      for (const limit of [1000, 333]) {
        const seen: string[] = []
        let cursor = ''
        let pages = 0
        for (;;) {
          const r = await paging.call('GET', `/v1/geofences?limit=${limit}${cursor}`, {key: paging.keys.testSk})
          expect(r.status).toBe(200)
          pages++
          seen.push(...ids(r.body))
          if (!r.body.meta.hasMore) break
          cursor = `&updatedBefore=${r.body.geofences.at(-1).updatedAt}`
        }
        expect(pages).toBe(Math.ceil(2500 / limit))
        expect(seen).toHaveLength(2500)
        expect(new Set(seen)).toEqual(created)
      }
    } finally {
      await paging.stop()
    }
  })
})
