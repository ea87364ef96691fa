import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'
import {fixture, importServed, MONACO} from '../osm/helpers.js'

// Regions holding the same OSM objects: Monaco imported twice, and one Lyon street cut at two dates
// (test/fixtures/osm/overlap.js), the older cut added first.
let server: TestServer
const get = async (path: string) => {
  const {status, body} = await server.call('GET', path, {key: server.keys.testPk})
  expect(status, path).toBe(200)
  return body
}
const labels = (addresses: {formattedAddress: string}[]) => addresses.map((a) => a.formattedAddress)
const repeated = (values: string[]) => values.filter((v, i) => values.indexOf(v) !== i)

beforeAll(async () => {
  server = await startTestServer()
  await importServed(server, MONACO)
  await importServed(server, MONACO, {add: true, region: 'monaco-copy'})
  await importServed(server, fixture('overlap-old.osm.pbf'), {add: true})
  await importServed(server, fixture('overlap-new.osm.pbf'), {add: true})
}, 120_000)
afterAll(() => server?.stop())

describe('a thing two regions hold is answered once', () => {
  it('forward geocoding and autocomplete (Monaco imported twice)', async () => {
    for (const path of ['/v1/geocode/forward?query=6+bd+de+belgique+monaco', '/v1/geocode/forward?query=monaco', '/v1/geocode/forward?query=98000',
      '/v1/search/autocomplete?query=6+boulevard+de+bel&near=43.73,7.42', '/v1/search/autocomplete?query=boulevard&near=43.73,7.42&limit=30']) {
      const {addresses} = await get(path)
      expect(addresses.length, path).toBeGreaterThan(1)
      // the same address text at the same point twice is the same thing twice
      expect(repeated(addresses.map((a: {formattedAddress: string; latitude: number; longitude: number}) => `${a.formattedAddress} ${a.latitude},${a.longitude}`)), path).toEqual([])
    }
    const [top] = (await get('/v1/geocode/forward?query=6+bd+de+belgique+monaco')).addresses
    expect(top.formattedAddress).toBe('6 Boulevard de Belgique, 98000 Monaco, Monaco')
  })

  it('place search (Monaco imported twice)', async () => {
    const {places} = await get('/v1/search/places?near=43.7384,7.4246&radius=300&categories=food&limit=10')
    expect(places.length).toBe(10)
    expect(repeated(places.map((p: {_id: string}) => p._id))).toEqual([])
  })

  it('keeps the best-matching copy; between equal copies the region added first', async () => {
    const street = await get('/v1/geocode/forward?query=rue+pareille&layers=address')
    // the street and house 5 as the older cut has them (the newer cut's street takes its town from house 5 too)
    expect(labels(street.addresses).slice(0, 3)).toEqual(['Rue Pareille, Ancienne, France', '5 Rue Pareille, 69009 Ancienne, France', '9 Rue Pareille, 69009 Nouvelle, France'])
    expect(labels(street.addresses).filter((l: string) => l.includes('Pareille'))).toHaveLength(3)
    const asked = await get('/v1/geocode/forward?query=5+rue+pareille+nouvelle')
    expect(labels(asked.addresses).filter((l: string) => l.startsWith('5 Rue Pareille'))).toEqual(['5 Rue Pareille, 69009 Nouvelle, France'])
    const typed = await get('/v1/search/autocomplete?query=5+rue+parei&near=45.75,4.85')
    expect(labels(typed.addresses).filter((l: string) => l.startsWith('5 Rue Pareille'))).toEqual(['5 Rue Pareille, 69009 Ancienne, France'])
    const bakery = await get('/v1/search/places?near=45.7501,4.852&radius=100&categories=grocery')
    expect(bakery.places.map((p: {_id: string; name: string}) => [p._id, p.name])).toEqual([['n2', 'Boulangerie Ancienne']])
    const reverse = await get('/v1/geocode/reverse?coordinates=45.7501,4.8510')
    expect(labels(reverse.addresses)).toEqual(['5 Rue Pareille, 69009 Ancienne, France'])
  })
})
