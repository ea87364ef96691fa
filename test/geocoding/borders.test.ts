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

describe('which towns a thing belongs to', () => {
  const parts = (a: Record<string, any>) => ({formattedAddress: a.formattedAddress, countryCode: a.countryCode, city: a.city, neighborhood: a.neighborhood})
  const FRENCH_STREET = {countryCode: 'FR', city: undefined, neighborhood: undefined}

  it('a French street by the border is in France, not in Monaco nor one of its quarters (no French town in the extract: no city)', async () => {
    const found = await get(`/v1/search/autocomplete?query=Avenue&limit=20`)
    for (const name of ['Avenue Marquet', 'Avenue Delphine']) {
      expect(parts(found.find((a) => a.street === name)!)).toEqual({formattedAddress: `${name}, France`, ...FRENCH_STREET})
    }
    const [rainier] = await get(`/v1/geocode/forward?query=${q('Avenue Prince Rainier III Monaco')}`)
    expect(parts(rainier)).toEqual({formattedAddress: 'Avenue Prince Rainier III Monaco, France', ...FRENCH_STREET})
    // reverse in Cap-d'Ail: no town, no quarter
    expect(await get(`/v1/geocode/reverse?coordinates=43.7257047,7.4115225&layers=locality,neighborhood`)).toEqual([])
  })

  it('a French postcode is not named after Monaco', async () => {
    const [pc] = await get(`/v1/geocode/forward?query=06320&layers=postalCode`)
    expect(parts(pc)).toEqual({formattedAddress: '06320, France', ...FRENCH_STREET})
    const monaco = await get(`/v1/geocode/forward?query=Monaco`)
    expect(monaco.filter((a) => a.countryCode !== 'MC' && a.city === 'Monaco').map((a) => a.formattedAddress)).toEqual([])
  })

  it('an address just outside the imported border is in the neighbour country, where the shipped borders still say Monaco', async () => {
    const [address] = await get(`/v1/geocode/reverse?coordinates=43.7401721,7.4211258`)
    expect({...parts(address), number: address.number, distance: address.distance}).toEqual({formattedAddress: '7 Rue de la Source, France', ...FRENCH_STREET, number: '7', distance: 0})
  })

  it('no doc of one country carries a town or quarter of the other', () => {
    const db = server.system.map.db('monaco')!
    const mixed = db.prepare("SELECT layer, coalesce(name, street), city, neighborhood FROM geocoding_docs WHERE country_code = 'FR' AND (city = 'Monaco' OR neighborhood IS NOT NULL)").raw().all()
    expect(mixed).toEqual([])
  })
})

describe('a street across a border', () => {
  it('is one street per country, each with its own point: Avenue Princesse Grace in Monaco (Larvotto) and in Roquebrune-Cap-Martin; a part under 50 m is not', async () => {
    const streets = await get(`/v1/geocode/forward?query=${q('Avenue Princesse Grace')}&layers=street`)
    expect(streets.slice(0, 2).map((a) => ({formattedAddress: a.formattedAddress, countryCode: a.countryCode, city: a.city, neighborhood: a.neighborhood, at: at(a)}))).toEqual([
      {formattedAddress: 'Avenue Princesse Grace, Monaco, Monaco', countryCode: 'MC', city: 'Monaco', neighborhood: 'Larvotto', at: [43.7439544, 7.4310358]},
      {formattedAddress: 'Avenue Princesse Grace, France', countryCode: 'FR', city: undefined, neighborhood: undefined, at: [43.7513862, 7.441814]},
    ])
    expect(streets.slice(2).filter((a) => a.street === 'Avenue Princesse Grace')).toEqual([])
    const [typed] = await get(`/v1/search/autocomplete?query=${q('Avenue Princesse Gr')}&layers=street`)
    expect(typed.formattedAddress).toBe('Avenue Princesse Grace, Monaco, Monaco')
    // its 36 ways and 3,462 m, shared out: 29 ways in Monaco, 7 in France
    const db = server.system.map.db('monaco')!
    expect(db.prepare("SELECT way_count, length_m FROM streets WHERE name = 'Avenue Princesse Grace' ORDER BY length_m DESC").raw().all()).toEqual([[29, 2455], [7, 1007]])
    // a part of under 50 m stays with the rest (a way drawn just past the line): Rue de l'Industrie (Fontvieille) has a 5 m way in Cap-d'Ail
    expect(db.prepare("SELECT way_count, length_m FROM streets WHERE name = ?").raw().all("Rue de l'Industrie")).toEqual([[3, 165]])
  })
})

describe('ranking', () => {
  it('ranks every result matching each typed word above any that leaves one unmatched ("Avenue Pr": no "Rue Pr…", no Principauté de Monaco)', async () => {
    const found = await get(`/v1/search/autocomplete?query=${q('Avenue Pr')}&limit=10`)
    expect(found[0].formattedAddress).toBe('Avenue Prince Pierre, Monaco, Monaco')
    expect(found.filter((a) => !/^(\d+ )?Avenue Pr/.test(a.formattedAddress)).map((a) => a.formattedAddress)).toEqual([])
    // a word nothing matches leaves every result incomplete: they rank as before
    const [unknown] = await get(`/v1/search/autocomplete?query=${q('Avenue Princesse Grace Xyzzy')}&layers=street`)
    expect(unknown.formattedAddress).toBe('Avenue Princesse Grace, Monaco, Monaco')
  })
})
