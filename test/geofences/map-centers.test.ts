import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {haversine} from '../../src/osm/geom.js'
import {importGeofences} from '../../src/sync/import.js'
import {expectInvalidParameter, startTestServer, type TestServer} from '../helpers.js'
import {importServed, MONACO} from '../osm/helpers.js'

let s: TestServer
let sk: string
let pk: string

beforeAll(async () => {
  s = await startTestServer()
  sk = s.keys.testSk
  pk = s.keys.testPk
})
afterAll(() => s?.stop())

const q = encodeURIComponent
const put = (externalId: string, body: Record<string, unknown>) => s.call('PUT', `/v1/geofences/centers/${externalId}`, {key: sk, body})
const snapshot = () => s.store.sqlite.prepare('SELECT * FROM geofences ORDER BY id').all()
const circle = (extra: Record<string, unknown>) => ({description: 'x', type: 'circle', radius: 50, ...extra})

const CARREFOUR = 'n4449492349'
const ANNONCIADE = "17 Avenue de l'Annonciade, Monaco"
/** Fontvieille, about 2.5 km from the Avenue de l'Annonciade */
const FONTVIEILLE = [7.4155, 43.7285]

/** 400 naming `param` with `message`, on PUT and POST, and no geofence written. */
async function refused(body: Record<string, unknown>, param: string, message: RegExp): Promise<void> {
  const before = snapshot()
  for (const r of [await put('refused', body), await s.call('POST', '/v1/geofences', {key: sk, body})]) {
    expectInvalidParameter(r, param)
    expect(r.body.meta.message).toMatch(message)
  }
  expect(snapshot()).toEqual(before)
}

describe('without an imported map', () => {
  it('refuses placeId and address alone, saying no places index or geocoder is loaded', async () => {
    await refused(circle({placeId: CARREFOUR}), 'placeId', /^placeId: must be the id of a known place \(no places index is loaded; give coordinates instead\)$/)
    await refused(circle({placeId: CARREFOUR, coordinates: [7.42, 43.73]}), 'placeId', /no places index is loaded/)
    await refused(circle({address: ANNONCIADE}), 'address', /^address: must be an address the geocoder can resolve \(no geocoder is loaded; give coordinates instead\)$/)
    // with coordinates the address cannot be checked: coordinates win, as before
    expect((await put('unchecked', circle({address: ANNONCIADE, coordinates: FONTVIEILLE}))).status).toBe(200)
  })
})

describe('with the Monaco map imported', () => {
  beforeAll(() => importServed(s, MONACO), 120_000)

  /** The place with this _id as /v1/search/places answers it. */
  async function place(id: string, categories: string, near: number[]): Promise<{location: {coordinates: number[]}}> {
    const r = await s.call('GET', `/v1/search/places?categories=${categories}&near=${near[1]},${near[0]}&radius=100&limit=100`, {key: pk})
    const found = r.body.places.find((p: {_id: string}) => p._id === id)
    expect(found, id).toBeDefined()
    return found
  }

  it('centres a circle on the place of a placeId (a shop node: its location; an area: its centroid), over coordinates and address', async () => {
    const carrefour = await place(CARREFOUR, 'grocery', [7.4236, 43.7409])
    const r = await put('carrefour', circle({placeId: CARREFOUR}))
    expect(r.status).toBe(200)
    expect(r.body.geofence).toMatchObject({type: 'circle', geometryCenter: {type: 'Point', coordinates: carrefour.location.coordinates}, geometryRadius: 50})

    // the museum's centroid is its footprint polygon's centre (the place's location is another point inside it)
    const museum = await place('w23715051', 'culture', [7.4255, 43.7307])
    const outline = await put('museum-outline', {description: 'x', type: 'polygon', placeId: 'w23715051'})
    expect(outline.body.geofence.geometryCenter.coordinates).not.toEqual(museum.location.coordinates)
    const over = await put('museum', circle({placeId: 'w23715051', coordinates: FONTVIEILLE, address: ANNONCIADE}))
    expect(over.status).toBe(200)
    expect(over.body.geofence.geometryCenter.coordinates).toEqual(outline.body.geofence.geometryCenter.coordinates)
  })

  it('draws an isochrone to the place of a placeId', async () => {
    const carrefour = await place(CARREFOUR, 'grocery', [7.4236, 43.7409])
    const r = await put('iso', {description: 'x', type: 'isochrone', placeId: CARREFOUR, mode: 'foot', radius: 5})
    expect(r.status).toBe(200)
    expect(r.body.geofence).toMatchObject({type: 'isochrone', geometryCenter: {coordinates: carrefour.location.coordinates}, geometryRadius: 5})
  })

  it('centres a circle on the point /v1/geocode/forward finds for an address', async () => {
    const [top] = (await s.call('GET', `/v1/geocode/forward?query=${q(ANNONCIADE)}`, {key: pk})).body.addresses
    const r = await put('annonciade', circle({address: ANNONCIADE}))
    expect(r.status).toBe(200)
    const [lng, lat] = r.body.geofence.geometryCenter.coordinates
    expect(haversine(lng, lat, top.longitude, top.latitude)).toBeLessThan(10)
  })

  it('with coordinates, keeps them when the address is near them and refuses an address far from them', async () => {
    const near = [7.4312, 43.7480]
    const r = await put('near', circle({address: ANNONCIADE, coordinates: near}))
    expect(r.status).toBe(200)
    expect(r.body.geofence.geometryCenter.coordinates).toEqual(near)
    await refused(circle({address: ANNONCIADE, coordinates: FONTVIEILLE}), 'address', /^address: must be near coordinates \(the geocoder puts it 2,\d{3} m from them; at most 1,000 m\)$/)
    // an address the map does not know, or coordinates the map does not reach: nothing to check
    expect((await put('unknown-near', circle({address: '123 Main Street, Springfield, IL', coordinates: FONTVIEILLE}))).status).toBe(200)
    expect((await put('paris', circle({address: '6 Boulevard de Belgique, Paris', coordinates: [2.35, 48.86]}))).status).toBe(200)
  })

  it('refuses an unknown placeId, and on a polygon the placeId of a point place, writing nothing', async () => {
    for (const id of ['n23715051', 'n1', 'x4449492349', 'carrefour']) {
      await refused(circle({placeId: id}), 'placeId', /^placeId: must be the id of a place of the imported map /)
      await refused(circle({placeId: id, coordinates: [7.42, 43.73]}), 'placeId', /must be the id of a place of the imported map/)
    }
    const ring = [[7.41, 43.73], [7.42, 43.73], [7.42, 43.74], [7.41, 43.73]]
    await refused({description: 'x', type: 'polygon', placeId: CARREFOUR, coordinates: ring}, 'placeId', /^placeId: must be a place with a footprint \(an area\) for polygon geofences /)
  })

  it('refuses an address the geocoder cannot resolve to an address or place, writing nothing', async () => {
    for (const address of ['123 Main Street, Springfield, IL', 'zzzz qqqq', '1 Main St', 'Avenue de l\'Annonciade', 'Monaco']) {
      await refused(circle({address}), 'address', /^address: must be an address the geocoder can resolve to a point of the imported map /)
    }
  })

  it('imports CSV rows by placeId and address through the same schema, naming the column of a bad one', async () => {
    const file = path.join(s.dataDir, 'centers.csv')
    const rows = (extra: string) => ['description,type,tag,externalId,address,placeId,radius', `Shop,circle,csv,p,,${CARREFOUR},50`, `Home,circle,csv,a,"${ANNONCIADE}",,50`, extra].join('\n')
    writeFileSync(file, rows(`Bad,circle,csv,x,,n1,50`))
    const refusedImport = await importGeofences(s.system, file, {live: false})
    expect(refusedImport).toMatchObject({rows: 3, failed: 1, written: false, failures: [{row: 4, column: 'placeId'}]})
    writeFileSync(file, rows(`Other,circle,csv,b,"zzzz qqqq",,50`))
    expect((await importGeofences(s.system, file, {live: false, partial: true})).failures).toMatchObject([{row: 4, column: 'address'}])
    const shop = (await s.call('GET', '/v1/geofences/csv/p', {key: sk})).body.geofence
    expect(shop.geometryCenter.coordinates).toEqual((await place(CARREFOUR, 'grocery', [7.4236, 43.7409])).location.coordinates)
    expect((await s.call('GET', '/v1/geofences/csv/a', {key: sk})).status).toBe(200)
  })
})
