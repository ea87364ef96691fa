import {createServer, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {addSyncSource} from '../../src/sync/sources.js'
import {expectInvalidParameter, startTestServer, type TestServer} from '../helpers.js'
import {fixture, importServed, MONACO, openRegion} from '../osm/helpers.js'

// A place's geometry overrides a geofence's (spec, geofence CSV): a polygon takes the footprint's
// ring, a circle or an isochrone its centroid. Real imports (Monaco, the synthetic footprints
// fixture), CSV through a real sync (HTTP receiver → POST /v1/geofences/sync), and the API.

type Ring = number[][]

let s: TestServer
let sk: string
let http: Server
let base: string
const files: Record<string, string> = {}
const sources: Record<string, {id: string}> = {}

beforeAll(async () => {
  http = createServer((req, res) => {
    const body = files[req.url!.slice(1)]
    if (body === undefined) return res.writeHead(404).end()
    res.writeHead(200, {'content-type': 'text/csv'}).end(body)
  })
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve))
  base = `http://127.0.0.1:${(http.address() as AddressInfo).port}`
  s = await startTestServer({sync: {allowPrivateUrls: true}})
  sk = s.keys.testSk
  await importServed(s, MONACO)
  await importServed(s, fixture('footprints.osm.pbf'), {add: true})
}, 180_000)

afterAll(async () => {
  await s?.stop()
  http?.closeAllConnections()
  await new Promise((resolve) => http?.close(resolve))
})

/** Monaco's Stade Louis-II: a way, one ring of 61 positions. */
const STADE = 'w49209155'
/** Monaco's Palais princier: a multipolygon relation, an outer ring and a courtyard hole. */
const PALAIS = 'r393226'
/** A Carrefour shop: a node, no footprint. */
const CARREFOUR = 'n4449492349'
/** footprints fixture: a way of 2,501 positions. */
const RING_PARK = 'w1000'
/** footprints fixture: two separate squares. */
const TWIN_PARK = 'r2000'
const REGION: Record<string, string> = {[STADE]: 'monaco', [PALAIS]: 'monaco', [RING_PARK]: 'footprints', [TWIN_PARK]: 'footprints'}

/** The place's footprint as the import stored it in the region's map.db (polygons of rings). */
function footprint(placeId: string): Ring[][] {
  const db = openRegion(s.dataDir, REGION[placeId])
  try {
    const text = db.prepare('SELECT footprint FROM places WHERE osm_type = ? AND osm_id = ?').pluck().get(placeId[0], Number(placeId.slice(1))) as string
    const geometry = JSON.parse(text)
    return geometry.type === 'Polygon' ? [geometry.coordinates] : geometry.coordinates
  } finally {
    db.close()
  }
}

const HEADER = 'description,type,tag,externalId,coordinates,placeId,radius,mode'
let syncs = 0
/**
 * Runs a sync of `rows` through the API and returns the finished job: the file served by the
 * receiver under `name`, from its own source (a new one each call unless `name` is given again).
 */
async function sync(rows: string[], name = `f${++syncs}.csv`): Promise<any> {
  files[name] = [HEADER, ...rows].join('\n') + '\n'
  const source = sources[name] ??= addSyncSource(s.store, s.config, false, {url: `${base}/${name}`, prune: false})
  let job = (await s.call('POST', '/v1/geofences/sync', {key: sk, body: {sourceId: source.id}})).body.job
  for (let i = 0; i < 500 && job.status === 'running'; i++) {
    await new Promise((resolve) => setTimeout(resolve, 20))
    job = (await s.call('GET', `/v1/jobs/${job._id}`, {key: sk})).body.job
  }
  return job
}

const geofence = async (tag: string, externalId: string) => (await s.call('GET', `/v1/geofences/${tag}/${externalId}`, {key: sk})).body.geofence
const snapshot = () => s.store.sqlite.prepare('SELECT * FROM geofences ORDER BY id').all()
/** Some ring of the row's own, which the place's footprint overrides. */
const DRAWN = '"[[7.41,43.73],[7.42,43.73],[7.42,43.74],[7.41,43.73]]"'

describe('CSV rows by placeId take the place geometry', () => {
  it('a polygon gets the footprint ring, exactly; a circle and an isochrone its centroid', async () => {
    const job = await sync([
      `Stade,polygon,csv,stade,${DRAWN},${STADE},,`,
      `Palais,polygon,csv,palais,,${PALAIS},,`,
      `Stade circle,circle,csv,stade-circle,"[7.40,43.70]",${STADE},80,`,
      `Stade walk,isochrone,csv,stade-walk,,${STADE},5,foot`,
    ])
    expect(job).toMatchObject({status: 'succeeded', counts: {created: 4, failed: 0}})

    const stade = await geofence('csv', 'stade')
    expect(stade).toMatchObject({type: 'polygon', geometry: {type: 'Polygon', coordinates: [footprint(STADE)[0][0]]}})
    expect(stade.geometry.coordinates[0]).toHaveLength(61)

    // the outer ring only: the courtyard (the footprint's hole) is inside the geofence
    const palais = footprint(PALAIS)
    expect(palais[0]).toHaveLength(2)
    expect((await geofence('csv', 'palais')).geometry.coordinates).toEqual([palais[0][0]])

    // the centroid is the stadium polygon's own centre, not the circle row's coordinates
    const circle = await geofence('csv', 'stade-circle')
    expect(circle).toMatchObject({type: 'circle', geometryRadius: 80, geometryCenter: {type: 'Point', coordinates: stade.geometryCenter.coordinates}})
    const walk = await geofence('csv', 'stade-walk')
    expect(walk).toMatchObject({type: 'isochrone', geometryRadius: 5, geometryCenter: {coordinates: stade.geometryCenter.coordinates}})
  })

  it('a footprint longer than 2,000 positions becomes a ring of at most 2,000 of its own positions, in order', async () => {
    expect((await sync([`Ring Park,polygon,csv,ring-park,,${RING_PARK},,`])).status).toBe('succeeded')
    const outline = footprint(RING_PARK)[0][0]
    expect(outline).toHaveLength(2501)
    const ring: Ring = (await geofence('csv', 'ring-park')).geometry.coordinates[0]
    expect(ring.length).toBeLessThanOrEqual(2000)
    expect(ring.length).toBeGreaterThan(1000)
    expect(ring[0]).toEqual(outline[0])
    expect(ring.at(-1)).toEqual(outline[0])
    // a subsequence of the footprint: every position one of its own, none out of order
    let j = 0
    for (const p of ring) {
      while (j < outline.length && (outline[j][0] !== p[0] || outline[j][1] !== p[1])) j++
      expect(j, `position ${JSON.stringify(p)}`).toBeLessThan(outline.length)
      j++
    }
  })

  it('refuses a polygon row whose place is a point or has several parts, naming placeId, changing nothing', async () => {
    const before = snapshot()
    const job = await sync([
      `Shop,polygon,csv,shop,${DRAWN},${CARREFOUR},,`,
      `Twins,polygon,csv,twins,,${TWIN_PARK},,`,
      `Fine,polygon,csv,fine,,${STADE},,`,
    ])
    expect(job.status).toBe('failed')
    expect(job.error).toBe('invalid CSV, nothing changed (2 of 3 rows failed): ' +
      `row 2, placeId: must be a place with a footprint (an area) for polygon geofences (${CARREFOUR} is a point in the imported map; make a circle geofence around it, or give the ring as coordinates without placeId); ` +
      `row 3, placeId: must be a place whose footprint is one ring for polygon geofences (${TWIN_PARK}'s footprint has 2 separate parts; make a circle geofence around it, or give a ring as coordinates without placeId)`)
    expect(snapshot()).toEqual(before)
  })
})

describe('PUT and POST with type polygon and a placeId', () => {
  it('take the footprint ring over coordinates, and refuse what cannot be one ring, writing nothing', async () => {
    const body = (placeId: string) => ({description: 'x', type: 'polygon', placeId, coordinates: [[7.41, 43.73], [7.42, 43.73], [7.42, 43.74], [7.41, 43.73]]})
    const put = await s.call('PUT', '/v1/geofences/api/stade', {key: sk, body: body(STADE)})
    expect(put.status).toBe(200)
    expect(put.body.geofence.geometry.coordinates).toEqual([footprint(STADE)[0][0]])
    const post = await s.call('POST', '/v1/geofences', {key: sk, body: body(PALAIS)})
    expect(post.status).toBe(200)
    expect(post.body.geofence.geometry.coordinates).toEqual([footprint(PALAIS)[0][0]])

    const before = snapshot()
    for (const [placeId, message] of [[CARREFOUR, /^placeId: must be a place with a footprint \(an area\) for polygon geofences /], [TWIN_PARK, /has 2 separate parts/]] as const) {
      for (const r of [await s.call('PUT', '/v1/geofences/api/refused', {key: sk, body: body(placeId)}), await s.call('POST', '/v1/geofences', {key: sk, body: body(placeId)})]) {
        expectInvalidParameter(r, 'placeId')
        expect(r.body.meta.message).toMatch(message)
      }
    }
    expect(snapshot()).toEqual(before)
  })
})

describe('a map import after a CSV import', () => {
  it('is seen by the next import of the row: placeId rows are parsed again, not skipped as unchanged text', async () => {
    const row = `Stade again,circle,csv,stade-again,,${STADE},60,`
    expect((await sync([row], 'again.csv')).counts).toMatchObject({created: 1})
    // Monaco replaced by the footprints extract alone: the stadium is no place of the map now
    await importServed(s, fixture('footprints.osm.pbf'))
    const job = await sync([row, `Ring Park,polygon,csv,ring-park-again,,${RING_PARK},,`], 'again.csv')
    expect(job.status).toBe('failed')
    expect(job.error).toMatch(/^invalid CSV, nothing changed \(1 of 2 rows failed\): row 2, placeId: must be the id of a place of the imported map /)
  })
})
