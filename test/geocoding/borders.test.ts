import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'
import {importServed, MONACO} from '../osm/helpers.js'

// Monaco's extract reaches into France (Cap-d'Ail, Beausoleil, Roquebrune-Cap-Martin), whose
// boundaries it cuts: where areas sit and which country's towns things belong to.
let server: TestServer
const q = encodeURIComponent
const get = async (path: string) => {
  const r = await server.call('GET', path, {key: server.keys.testPk})
  expect(r.status, path).toBe(200)
  return r.body.addresses as Record<string, any>[]
}
const at = (a: Record<string, any>) => [a.latitude, a.longitude]
const near = (a: Record<string, any>, lat: number, lon: number) => Math.abs(a.latitude - lat) < 1e-6 && Math.abs(a.longitude - lon) < 1e-6

beforeAll(async () => {
  server = await startTestServer()
  await importServed(server, MONACO)
}, 120_000)
afterAll(() => server?.stop())

describe('where an area sits', () => {
  it('a country at its label node (on land, in its own time zone), not the middle of its territorial waters', async () => {
    const [country] = await get(`/v1/geocode/forward?query=Monaco&layers=country`)
    // relation 1124039's label member, node 6684051501 on the Rock
    expect({layer: country.layer, at: at(country), timeZone: country.timeZone.id}).toEqual({layer: 'country', at: [43.7323492, 7.4276832], timeZone: 'Europe/Monaco'})
  })

  it('a city and its quarters at their admin_centre place nodes (same name or wikidata)', async () => {
    const [city] = await get(`/v1/geocode/forward?query=Monaco&layers=locality`)
    expect({layer: city.layer, at: at(city)}).toEqual({layer: 'locality', at: [43.7311424, 7.4197576]})
    // Les Monegetti's admin_centre is spelled "Les Moneghetti" and shares its wikidata
    const [quarter] = await get(`/v1/geocode/forward?query=${q('Les Monegetti')}&layers=neighborhood`)
    expect({name: quarter.neighborhood, at: at(quarter)}).toEqual({name: 'Les Monegetti', at: [43.7363762, 7.4174583]})
  })

  it('a postcode at one of its addresses, not the mean of them', async () => {
    for (const code of ['98000', '06320']) {
      const [pc] = await get(`/v1/geocode/forward?query=${code}&layers=postalCode`)
      expect(pc.layer, code).toBe('postalCode')
      const [there] = await get(`/v1/geocode/reverse?coordinates=${pc.latitude},${pc.longitude}&layers=address`)
      expect({code, postalCode: there.postalCode, distance: there.distance}).toEqual({code, postalCode: code, distance: 0})
    }
  })
})
