import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectInvalidParameter, seededQueries, startTestServer, type TestServer} from '../helpers.js'
import {importServed, MONACO} from '../osm/helpers.js'

let s: TestServer
const [LAT, LNG] = [43.7384, 7.4246]
const NEAR = `${LAT},${LNG}`
const M = 1 / 111_195
const LNG_M = M / Math.cos((LAT * Math.PI) / 180)

const track = async (userId: string, lat: number, lng: number, metadata?: Record<string, unknown>, key = s.keys.testPk) => {
  const r = await s.call('POST', '/v1/track', {key, body: {deviceId: `d-${userId}`, userId, latitude: lat, longitude: lng, accuracy: 10, metadata}})
  expect(r.status, JSON.stringify(r.body)).toBe(200)
}
const search = (query: string, key = s.keys.testSk) => s.call('GET', `/v1/search/users?${query}`, {key})
const ids = (body: {users: {userId: string}[]}) => body.users.map((u) => u.userId)

beforeAll(async () => {
  s = await startTestServer()
  await importServed(s, MONACO)
  await track('here', LAT, LNG, {team: 'a', level: 3, vip: true})
  await track('north-300', LAT + 300 * M, LNG, {team: 'b', level: '3'})
  await track('east-900', LAT, LNG + 900 * LNG_M)
  await track('far', LAT + 3000 * M, LNG)
  await track('live', LAT, LNG, undefined, s.keys.livePk)
}, 120_000)
afterAll(() => s?.stop())

describe('GET /v1/search/users', () => {
  it('answers users of the key environment by last location within 1 km, nearest first, as the Users API returns them', async () => {
    const {status, body} = await search(`near=${NEAR}`)
    expect(status).toBe(200)
    expect(ids(body)).toEqual(['here', 'north-300', 'east-900'])
    const one = await s.call('GET', '/v1/users/here', {key: s.keys.testSk})
    expect(body.users[0]).toEqual(one.body.user)
    expect(ids((await search(`near=${NEAR}`, s.keys.liveSk)).body)).toEqual(['live'])
  })

  it('filters by radius, metadata and limit; moves with the user', async () => {
    expect(ids((await search(`near=${NEAR}&radius=10000`)).body)).toEqual(['here', 'north-300', 'east-900', 'far'])
    expect(ids((await search(`near=${NEAR}&radius=500`)).body)).toEqual(['here', 'north-300'])
    expect(ids((await search(`near=${NEAR}&limit=1`)).body)).toEqual(['here'])
    expect(ids((await search(`near=${NEAR}&metadata[team]=a`)).body)).toEqual(['here'])
    expect(ids((await search(`near=${NEAR}&metadata[level]=3`)).body)).toEqual(['here', 'north-300'])
    expect(ids((await search(`near=${NEAR}&metadata[vip]=true&metadata[level]=3`)).body)).toEqual(['here'])
    await track('far', LAT + 100 * M, LNG)
    expect(ids((await search(`near=${NEAR}`)).body)).toEqual(['here', 'far', 'north-300', 'east-900'])
    await track('far', LAT + 3000 * M, LNG)
  })

  it('with mode, takes radius as minutes of travel on the imported roads', async () => {
    const walk = await search(`near=${NEAR}&mode=foot&radius=5`)
    expect(walk.status).toBe(200)
    expect(ids(walk.body)).toContain('here')
    expect(ids(walk.body)).not.toContain('east-900')
    expect(ids(walk.body)).not.toContain('far')
    const off = await search('near=0,0&mode=car&radius=10')
    expect(off.status).toBe(400)
    expect(off.body.meta.param).toBe('near')
  })

  it('needs a secret key', async () => {
    const {status} = await search(`near=${NEAR}`, s.keys.testPk)
    expect(status).toBe(403)
  })

  const BAD: [string, string][] = [
    ['', 'near'],
    ['near=1', 'near'],
    [`near=${NEAR}&radius=99`, 'radius'],
    [`near=${NEAR}&radius=10001`, 'radius'],
    [`near=${NEAR}&radius=0x10`, 'radius'],
    [`near=${NEAR}&mode=car&radius=61`, 'radius'],
    [`near=${NEAR}&mode=car&radius=1.5`, 'radius'],
    [`near=${NEAR}&mode=plane`, 'mode'],
    [`near=${NEAR}&limit=0`, 'limit'],
    [`near=${NEAR}&limit=101`, 'limit'],
  ]
  it.each(BAD)('refuses %s naming %s', async (query, param) => {
    expectInvalidParameter(await search(query), param)
  })

  it('answers 200 or a 400 naming a param to seeded random values of every parameter, never 500 (fuzz)', async () => {
    const junk = ['', ' ', '-1', '0', '1', '60', '100', '1e309', 'NaN', ',', 'null', '[]', 'ä😀', NEAR, '90,180', '-90,-180,1', 'car', 'foot', 'truck',
      'true', 'a'.repeat(300), '%E0%A4%A', '%00']
    const params = ['near', 'radius', 'mode', 'limit', 'metadata[team]']
    for (const query of seededQueries({seed: 5, count: 120, params, junk})) {
      const {status, body} = await search(query)
      expect([200, 400], `${query} → ${JSON.stringify(body)}`).toContain(status)
      if (status === 400) expect(body.meta.message.startsWith(`${body.meta.param}: `)).toBe(true)
      else expect(Array.isArray(body.users)).toBe(true)
    }
  })
})
