import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {importServed, MONACO} from '../osm/helpers.js'
import {startTestServer, type TestServer} from '../helpers.js'

/**
 * The hosted original's own web SDK (radar-sdk-js, unchanged) pointed at loc with `host`: apps
 * switch by changing that one option. It runs in a browser; here Node gives it the few browser
 * globals it reads (localStorage, navigator.geolocation and .permissions). Its HTTP is Node's
 * fetch, so every call below is a real request to a real server, answered or refused as the SDK
 * expects to read it.
 */
const STADIUM = {latitude: 43.7276, longitude: 7.4155}
const AWAY = {latitude: 43.74, longitude: 7.43}

function browserGlobals(position: {latitude: number; longitude: number; accuracy: number}): () => void {
  const items = new Map<string, string>()
  const g = globalThis as Record<string, unknown>
  const before = Object.getOwnPropertyDescriptor(globalThis, 'navigator')
  g.window = globalThis
  g.localStorage = {getItem: (k: string) => items.get(k) ?? null, setItem: (k: string, v: string) => items.set(k, String(v)),
    removeItem: (k: string) => items.delete(k), clear: () => items.clear()}
  Object.defineProperty(globalThis, 'navigator', {configurable: true, value: {userAgent: 'Mozilla/5.0 (loc test)', onLine: true, language: 'en-US',
    permissions: {query: async () => ({state: 'granted'})},
    geolocation: {getCurrentPosition: (ok: (p: unknown) => void) => ok({coords: {...position, altitude: null, altitudeAccuracy: null, heading: null, speed: null}, timestamp: Date.now()})}}})
  return () => {
    delete g.window
    delete g.localStorage
    if (before) Object.defineProperty(globalThis, 'navigator', before)
    else delete g.navigator
  }
}

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

describe('the hosted original web SDK against loc', () => {
  let server: TestServer
  let Radar: any
  let errors: any
  let restore: () => void
  beforeAll(async () => {
    // the track limit as shipped (1 a second a device): the SDK must read loc's 429 as its rate-limit error
    server = await startTestServer({rateLimits: {track: 1, geocode: 1000, search: 1000, searchPlaces: 1000, routing: 1000, matrix: 1000, validate: 1000, config: 1000}})
    await importServed(server, MONACO)
    expect((await server.call('PUT', '/v1/geofences/venue/stadium', {key: server.keys.testSk,
      body: {description: 'Stade Louis II', type: 'circle', coordinates: [STADIUM.longitude, STADIUM.latitude], radius: 200}})).status).toBe(200)
    restore = browserGlobals({...STADIUM, accuracy: 20})
    const sdk = await import('radar-sdk-js')
    Radar = sdk.default
    errors = sdk.errors
    Radar.initialize(server.keys.testPk, {host: server.url, logLevel: 'none'})
    Radar.setUserId('sdk-user')
  }, 120_000)
  afterAll(async () => {
    restore?.()
    await server?.stop()
  })

  it('tracks from the browser location: the user and the entry event, as the SDK returns them', async () => {
    // the limit counts per clock second: both tracks early in one
    await wait(1005 - (Date.now() % 1000))
    const {user, events, location} = await Radar.trackOnce()
    expect(location).toEqual({...STADIUM, accuracy: 20})
    expect(user).toMatchObject({userId: 'sdk-user', deviceType: 'Web', foreground: true, stopped: true,
      location: {type: 'Point', coordinates: [STADIUM.longitude, STADIUM.latitude]}, geofences: [{tag: 'venue', externalId: 'stadium'}]})
    expect(events.map((e: any) => [e.type, e.geofence?.externalId])).toEqual([['user.entered_geofence', 'stadium']])
    // the same device within the second: loc's 429 is the SDK's rate-limit error
    await expect(Radar.trackOnce(AWAY)).rejects.toBeInstanceOf(errors.RadarRateLimitError)
    await wait(1_100)
    const away = await Radar.trackOnce({...AWAY, accuracy: 10})
    expect(away.events.map((e: any) => e.type)).toEqual(['user.exited_geofence'])
    expect(away.user.geofences).toEqual([])
  })

  it('context, geocoding, autocomplete and search read the answers they expect', async () => {
    const context = await Radar.getContext(STADIUM)
    expect(context.geofences.map((g: any) => g.externalId)).toEqual(['stadium'])
    expect(context.country).toMatchObject({code: 'MC', name: 'Monaco'})

    const forward = await Radar.forwardGeocode({query: 'Boulevard des Moulins'})
    expect(forward.addresses[0]).toMatchObject({countryCode: 'MC', formattedAddress: expect.stringContaining('Boulevard des Moulins')})
    const reverse = await Radar.reverseGeocode({latitude: 43.7384, longitude: 7.4246})
    expect(reverse.addresses[0]).toMatchObject({countryCode: 'MC', city: 'Monaco'})
    const suggestions = await Radar.autocomplete({query: 'Avenue Princ', near: {latitude: 43.73, longitude: 7.42}, limit: 5})
    expect(suggestions.addresses[0]).toMatchObject({layer: 'street', street: 'Avenue Prince Pierre', countryCode: 'MC'})

    const geofences = await Radar.searchGeofences({near: STADIUM, radius: 1000})
    expect(geofences.geofences.map((g: any) => g.externalId)).toEqual(['stadium'])
    const places = await Radar.searchPlaces({near: {latitude: 43.7384, longitude: 7.4246}, radius: 1000, categories: ['cafe'], limit: 5})
    expect(places.places).toHaveLength(5)
    expect(places.places.every((p: any) => p.categories.includes('cafe'))).toBe(true)
  })

  it('address validation, distance and matrix', async () => {
    const validated = await Radar.validateAddress({addressLabel: '1 Boulevard des Moulins', city: 'Monaco', countryCode: 'MC', postalCode: '98000'})
    expect(validated.address).toMatchObject({street: 'Boulevard des Moulins', countryCode: 'MC'})
    expect(validated.result.verificationStatus).toEqual(expect.any(String))
    const distance = await Radar.distance({origin: {latitude: 43.7384, longitude: 7.4246}, destination: STADIUM, modes: ['car', 'foot'], units: 'metric'})
    expect(distance.routes.car.distance.value).toBeGreaterThan(distance.routes.geodesic.distance.value)
    expect(distance.routes.foot.duration.value).toBeGreaterThan(distance.routes.car.duration.value)
    const matrix = await Radar.matrix({origins: [{latitude: 43.7384, longitude: 7.4246}], destinations: [STADIUM, {latitude: 43.73, longitude: 7.42}], mode: 'car', units: 'metric'})
    expect(matrix.matrix).toHaveLength(1)
    expect(matrix.matrix[0].map((c: any) => c.destinationIndex)).toEqual([0, 1])
  })

  it('a trip: started by the SDK, linked to its tracks through the trip options it keeps, completed', async () => {
    const started = await Radar.startTrip({externalId: 'sdk-trip', destinationGeofenceTag: 'venue', destinationGeofenceExternalId: 'stadium', mode: 'car'})
    expect(started.trip).toMatchObject({externalId: 'sdk-trip', status: 'pending', destinationGeofenceExternalId: 'stadium'})
    await wait(1_100)
    const arriving = await Radar.trackOnce({...STADIUM, accuracy: 10})
    expect(arriving.user.trip).toMatchObject({externalId: 'sdk-trip', status: 'arrived'})
    expect(arriving.events.map((e: any) => e.type)).toContain('user.arrived_at_trip_destination')
    const updated = await Radar.updateTrip({externalId: 'sdk-trip', metadata: {gate: 'B'}})
    expect(updated.trip.metadata).toEqual({gate: 'B'})
    const completed = await Radar.completeTrip()
    expect(completed.trip.status).toBe('completed')
    expect(Radar.getTripOptions()).toBeNull()
  })

  it('conversions, and refusals the SDK reads as its own errors', async () => {
    const {event} = await Radar.logConversion({name: 'checkout', revenue: 12.5, metadata: {sku: 'x'}})
    expect(event).toMatchObject({type: 'conversion', name: 'checkout', revenue: 12.5, metadata: {sku: 'x', revenue: 12.5}, user: {userId: 'sdk-user'}})
    await expect(Radar.startTrip({externalId: 'nowhere', destinationGeofenceTag: 'venue', destinationGeofenceExternalId: 'missing'}))
      .rejects.toBeInstanceOf(errors.RadarBadRequestError)
    await expect(Radar.updateTrip({externalId: 'never-started'})).rejects.toBeInstanceOf(errors.RadarNotFoundError)
    Radar.initialize('prj_test_pk_0000000000000000000000000000000000000000', {host: server.url, logLevel: 'none'})
    try {
      await expect(Radar.getContext(STADIUM)).rejects.toBeInstanceOf(errors.RadarUnauthorizedError)
    } finally {
      Radar.initialize(server.keys.testPk, {host: server.url, logLevel: 'none'})
    }
  })
})
