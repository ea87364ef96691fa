import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {importOsm} from '../../src/osm/index.js'
import {setSettings} from '../../src/project/settings.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {fixture} from '../osm/helpers.js'

// test/fixtures/osm/regions-ca-us.js: British Columbia (CA-BC) and a "State of Oregon" (US-OR) drawn
// over a piece of Washington, where the shipped state shapes answer WA.
const IN_BC = {latitude: 49.2, longitude: -123.0}
const CANADA_OUTSIDE = {latitude: 49.2, longitude: -122.4}
const IN_IMPORTED_OR = {latitude: 48.8, longitude: -122.5}
const IN_WA = {latitude: 48.42, longitude: -122.33}

const BC = {code: 'BC', name: 'British Columbia'}
const OR = {code: 'OR', name: 'Oregon'}
const WA = {code: 'WA', name: 'Washington'}
const CA = {code: 'CA', name: 'Canada', flag: '🇨🇦'}
const US = {code: 'US', name: 'United States of America', flag: '🇺🇸'}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
  await importOsm(fixture('regions-ca-us.osm.pbf'), {dataDir: server.dataDir})
  // the server looks at the manifest at most once a second
  while (!server.system.map.regions().length) await new Promise((resolve) => setTimeout(resolve, 50))
  await setSettings(server.store, false, {'regions.enabled': true})
})
afterAll(() => server?.stop())

const context = (p: {latitude: number; longitude: number}) => server.call('GET', `/v1/context?coordinates=${p.latitude},${p.longitude}`, {key: server.keys.testPk})
const track = (p: {latitude: number; longitude: number}) => server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId: 'regions-1', accuracy: 10, ...p}})
/** The region events of a track answer as `type code`, in order. */
const regionEvents = (body: any) => body.events.filter((e: any) => e.type.includes('_region_')).map((e: any) => `${e.type} ${e.region.code}`)

describe('states from imported admin level 4 areas', () => {
  it('GET /v1/context answers the state of the imported area, by its ISO 3166-2 code, named in English', async () => {
    expect((await context(IN_BC)).body).toMatchObject({country: CA, state: BC})
    // the imported area wins over the shipped US shapes, and its own name ("State of Oregon") is no table's
    expect((await context(IN_IMPORTED_OR)).body).toMatchObject({country: US, state: OR})
    // outside the imported area the shipped shapes answer in the US
    expect((await context(IN_WA)).body).toMatchObject({country: US, state: WA})
  })

  it('a point in Canada outside any imported area has a country and no state (no shipped Canadian shapes)', async () => {
    const res = await context(CANADA_OUTSIDE)
    expect(res.status).toBe(200)
    expect(res.body.country).toEqual(CA)
    expect(res.body.state).toBeNull()
  })

  it('POST /v1/track: crossing the province line enters and exits the state; user.state follows', async () => {
    const first = await track(IN_BC)
    expect(regionEvents(first.body)).toEqual(['user.entered_region_country CA', 'user.entered_region_state BC'])
    expect(first.body.user.state).toEqual(BC)
    const state = first.body.events.find((e: any) => e.type === 'user.entered_region_state')
    expect(state.region).toEqual({type: 'state', ...BC})

    const out = await track(CANADA_OUTSIDE)
    expect(regionEvents(out.body)).toEqual(['user.exited_region_state BC'])
    expect(out.body.user.state ?? null).toBeNull()
    expect(out.body.user.country).toEqual(CA)

    const back = await track(IN_BC)
    expect(regionEvents(back.body)).toEqual(['user.entered_region_state BC'])

    const south = await track(IN_IMPORTED_OR)
    expect(regionEvents(south.body)).toEqual(['user.exited_region_country CA', 'user.entered_region_country US', 'user.exited_region_state BC', 'user.entered_region_state OR'])
    expect(south.body.user).toMatchObject({country: US, state: OR})
    // the region left carries what it carried when entered, its flag too
    expect(south.body.events[0].region).toEqual({type: 'country', ...CA})

    const shipped = await track(IN_WA)
    expect(regionEvents(shipped.body)).toEqual(['user.exited_region_state OR', 'user.entered_region_state WA'])
    // the stored user reads back the same state
    const stored = await server.call('GET', `/v1/users/${shipped.body.user._id}`, {key: server.keys.testSk})
    expect(stored.body.user.state).toEqual(WA)
  })
})
