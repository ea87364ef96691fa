import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectInvalidParameter, seededQueries, startTestServer, type TestServer} from '../helpers.js'

let s: TestServer
const NEAR = '43.73,7.42'
/** Degrees of longitude per metre at the test latitude. */
const LNG_M = 1 / (111_195 * Math.cos((43.73 * Math.PI) / 180))
const ids: Record<string, string> = {}
const created: Record<string, unknown> = {}

const put = async (name: string, body: Record<string, unknown>, key = s.keys.testSk) => {
  const r = await s.call('PUT', `/v1/geofences/${body.tag}/${name}`, {key, body: {description: name, ...body}})
  expect(r.status, JSON.stringify(r.body)).toBe(200)
  ids[name] = r.body.geofence._id
  created[name] = r.body.geofence
}
const search = (query: string, key = s.keys.testPk) => s.call('GET', `/v1/search/geofences?${query}`, {key})
const names = (body: {geofences: {externalId: string}[]}) => body.geofences.map((g) => g.externalId)

beforeAll(async () => {
  s = await startTestServer()
  await put('at', {type: 'circle', coordinates: [7.42, 43.73], radius: 50, tag: 'store', metadata: {chain: 'x', floors: 2, open: true}})
  // contains the point, centre ~140 m away
  await put('around', {type: 'polygon', tag: 'zone', coordinates: [[7.4195, 43.7295], [7.4225, 43.7295], [7.4225, 43.7325], [7.4195, 43.7325], [7.4195, 43.7295]]})
  // edge 400 m away
  await put('east', {type: 'circle', coordinates: [7.42 + 500 * LNG_M, 43.73], radius: 100, tag: 'store', metadata: {floors: '2'}})
  await put('far', {type: 'circle', coordinates: [7.42 + 3000 * LNG_M, 43.73], radius: 100, tag: 'store'})
  await put('off', {type: 'circle', coordinates: [7.42, 43.73], radius: 100, tag: 'store', enabled: false})
  await put('live', {type: 'circle', coordinates: [7.42, 43.73], radius: 100, tag: 'store'}, s.keys.liveSk)
})
afterAll(() => s?.stop())

describe('GET /v1/search/geofences', () => {
  it('answers enabled geofences of the key environment within 1 km of the edge, inside ones first, then by centre', async () => {
    const {status, body} = await search(`near=${NEAR}`)
    expect(status).toBe(200)
    expect(names(body)).toEqual(['at', 'around', 'east'])
    // the whole resource, as the Geofences API returns it
    expect(body.geofences[0]).toEqual(created.at)
    expect(body.geofences[1].geometry.type).toBe('Polygon')
    const live = await search(`near=${NEAR}`, s.keys.livePk)
    expect(names(live.body)).toEqual(['live'])
  })

  it('filters by radius, tags, metadata and limit; leaves the geometry out when asked', async () => {
    expect(names((await search(`near=${NEAR}&radius=5000`)).body)).toEqual(['at', 'around', 'east', 'far'])
    expect(names((await search(`near=${NEAR}&radius=399`)).body)).toEqual(['at', 'around'])
    expect(names((await search(`near=${NEAR}&tags=store`)).body)).toEqual(['at', 'east'])
    expect(names((await search(`near=${NEAR}&tags=zone,store&limit=2`)).body)).toEqual(['at', 'around'])
    // a number matches the number and the text; a boolean its text
    expect(names((await search(`near=${NEAR}&metadata[floors]=2`)).body)).toEqual(['at', 'east'])
    expect(names((await search(`near=${NEAR}&metadata[open]=true&metadata[chain]=x`)).body)).toEqual(['at'])
    expect(names((await search(`near=${NEAR}&metadata[chain]=y`)).body)).toEqual([])
    const lean = await search(`near=${NEAR}&includeGeometry=false&limit=1000`)
    expect(names(lean.body)).toEqual(['at', 'around', 'east'])
    const {geometry: _g, ...withoutGeometry} = created.at as Record<string, unknown>
    expect(lean.body.geofences[0]).toEqual(withoutGeometry)
  })

  it('sees a geofence moved or disabled at once (change feed)', async () => {
    await put('east', {type: 'circle', coordinates: [7.42 + 5000 * LNG_M, 43.73], radius: 100, tag: 'store'})
    await put('around', {type: 'polygon', tag: 'zone', enabled: false, coordinates: [[7.4195, 43.7295], [7.4225, 43.7295], [7.4225, 43.7325], [7.4195, 43.7325], [7.4195, 43.7295]]})
    expect(names((await search(`near=${NEAR}`)).body)).toEqual(['at'])
  })

  it('leaves out a geofence past its disableAfter or deleteAfter at once, as track does, in search and context alike', async () => {
    const at = [7.44, 43.74]
    await put('expired', {type: 'circle', coordinates: at, radius: 100, tag: 'past', disableAfter: '2020-01-01T00:00:00Z'})
    await put('doomed', {type: 'circle', coordinates: at, radius: 100, tag: 'past', deleteAfter: '2020-01-01T00:00:00Z'})
    await put('current', {type: 'circle', coordinates: at, radius: 100, tag: 'past', disableAfter: '2099-01-01T00:00:00Z'})
    expect(names((await search(`near=${at[1]},${at[0]}&tags=past`)).body)).toEqual(['current'])
    const context = await s.call('GET', `/v1/context?coordinates=${at[1]},${at[0]}`, {key: s.keys.testPk})
    expect(context.body.geofences.map((g: {externalId: string}) => g.externalId)).toEqual(['current'])
    const track = await s.call('POST', '/v1/track', {key: s.keys.testPk, body: {deviceId: 'past-device', latitude: at[1], longitude: at[0], accuracy: 5}})
    expect(track.body.user.geofences.map((g: {externalId: string}) => g.externalId)).toEqual(['current'])
  })

  it('measures a polygon from its nearest edge, not its bbox', async () => {
    // a diamond 400 m across; the point is at its bbox's north-west corner, 141 m from its edge
    const at = (east: number, north: number) => [7.42 + east * LNG_M, 43.73 + north / 111_195]
    await put('diamond', {type: 'polygon', tag: 'edge', coordinates: [at(300, 0), at(500, 200), at(700, 0), at(500, -200), at(300, 0)]})
    const point = at(300, 200).reverse().join(',')
    expect(names((await search(`near=${point}&tags=edge&radius=135`)).body)).toEqual([])
    expect(names((await search(`near=${point}&tags=edge&radius=147`)).body)).toEqual(['diamond'])
    expect(names((await search(`near=${at(500, 0).reverse().join(',')}&tags=edge&radius=1`)).body)).toEqual(['diamond'])
  })

  const BAD: [string, string][] = [
    ['', 'near'],
    ['near=91,0', 'near'],
    ['near=abc', 'near'],
    [`near=${NEAR}&radius=0`, 'radius'],
    [`near=${NEAR}&radius=1e309`, 'radius'],
    [`near=${NEAR}&limit=0`, 'limit'],
    [`near=${NEAR}&limit=1001&includeGeometry=false`, 'limit'],
    [`near=${NEAR}&limit=101`, 'limit'],
    [`near=${NEAR}&includeGeometry=maybe`, 'includeGeometry'],
    [`near=${NEAR}&tags=${'x'.repeat(300)}`, 'tags.0'],
  ]
  it.each(BAD)('refuses %s naming %s', async (query, param) => {
    expectInvalidParameter(await search(query), param)
  })

  it('answers 200 or a 400 naming a param to seeded random values of every parameter, never 500 (fuzz)', async () => {
    const junk = ['', ' ', '-1', '0', '1e309', 'NaN', ',', ',,', 'null', '[]', 'ä😀', '999999999', '43.73,7.42', '90,180', '-90,-180,1', 'true', 'false',
      '100', '101', '1000', 'store', 'a'.repeat(300), '%E0%A4%A', '%00']
    const params = ['near', 'radius', 'limit', 'tags', 'metadata[floors]', 'includeGeometry']
    for (const query of seededQueries({seed: 11, count: 150, params, junk})) {
      const {status, body} = await search(query)
      expect([200, 400], `${query} → ${JSON.stringify(body)}`).toContain(status)
      if (status === 400) expect(body.meta.message.startsWith(`${body.meta.param}: `)).toBe(true)
      else expect(Array.isArray(body.geofences)).toBe(true)
    }
  })
})
