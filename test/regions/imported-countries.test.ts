import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {setSettings} from '../../src/project/settings.js'
import {startTestServer, type TestServer} from '../helpers.js'
import {importServed, MONACO} from '../osm/helpers.js'

// The bundled Monaco extract holds Monaco's admin level 2 boundary (ISO3166-1 MC), drawn finer than
// the shipped borders and taking in its waters.
const MONACO_WATERS = {latitude: 43.7215, longitude: 7.4225}
const MC = {code: 'MC', name: 'Monaco', flag: '🇲🇨'}

let server: TestServer
beforeAll(async () => {
  server = await startTestServer()
  await setSettings(server.store, false, {'regions.enabled': true})
}, 120_000)
afterAll(() => server?.stop())

const context = (p: {latitude: number; longitude: number}) => server.call('GET', `/v1/context?coordinates=${p.latitude},${p.longitude}`, {key: server.keys.testPk})

describe('the country of an imported admin level 2 area', () => {
  it('is the country of the points it holds, where the shipped borders answer another or none', async () => {
    const before = (await context(MONACO_WATERS)).body.country
    expect(before?.code).not.toBe('MC')
    await importServed(server, MONACO)
    expect((await context(MONACO_WATERS)).body.country).toEqual(MC)
    const track = await server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId: 'boat', ...MONACO_WATERS, accuracy: 10}})
    expect(track.body.user.country).toEqual(MC)
    expect(track.body.events.map((e: any) => `${e.type} ${e.region?.code}`)).toEqual(['user.entered_region_country MC'])
    // far from the extract, the shipped borders still answer
    expect((await context({latitude: 48.8566, longitude: 2.3522})).body.country).toMatchObject({code: 'FR'})
  }, 120_000)
})
