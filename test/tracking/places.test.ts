import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {chainSlug} from '../../src/places/chain.js'
import {PLACE_CATEGORIES} from '../../src/osm/tags.js'
import {setSettings} from '../../src/project/settings.js'
import {fixture, importServed, MONACO} from '../osm/helpers.js'
import {startTestServer, type TestServer} from '../helpers.js'

describe('places on track (imported Monaco POIs)', () => {
  let server: TestServer
  let poi: {osm_type: string; osm_id: number; name: string; category: string; lon: number; lat: number}
  beforeAll(async () => {
    server = await startTestServer()
    await importServed(server, MONACO)
    const db = server.system.map.db('monaco')!
    // a point POI with no other POI within 120 m, so it is the only candidate
    const points = db.prepare('SELECT osm_type, osm_id, name, category, lon, lat FROM places WHERE footprint IS NULL ORDER BY id').all() as typeof poi[]
    poi = points.find((p) => points.every((q) => q === p || Math.hypot((q.lon - p.lon) * 80_000, (q.lat - p.lat) * 111_000) > 120))!
    await setSettings(server.store, false, {'places.enabled': true})
  }, 60_000)
  afterAll(() => server.stop())

  const track = (deviceId: string, lng: number, lat: number, stopped: boolean) =>
    server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId, latitude: lat, longitude: lng, accuracy: 10, stopped}})

  it('enters a point POI when stopped within 50 m, not while moving; exits when away; user.place follows', async () => {
    const moving = await track('p1', poi.lon, poi.lat + 0.0002, false)
    expect(moving.body.events).toEqual([])
    expect(moving.body.user.place).toBeNull()
    const stopped = await track('p1', poi.lon, poi.lat + 0.0002, true)
    expect(stopped.body.events.map((e: any) => e.type)).toEqual(['user.entered_place'])
    expect(stopped.body.events[0].place).toMatchObject({_id: `${poi.osm_type}${poi.osm_id}`, name: poi.name, categories: [poi.category]})
    expect(stopped.body.user.place.name).toBe(poi.name)
    const away = await track('p1', poi.lon, poi.lat + 0.01, false)
    expect(away.body.events.map((e: any) => [e.type, e.place.name])).toEqual([['user.exited_place', poi.name]])
    expect(away.body.user.place).toBeNull()
  })

  it('an exit carries its duration, minutes since the entry, as a geofence exit does; no answer shows the entry time', async () => {
    const at = (s: number) => new Date(Date.UTC(2026, 0, 5, 8, 0, s)).toISOString()
    const send = (lng: number, lat: number, seconds: number) => server.call('POST', '/v1/track', {key: server.keys.testPk,
      body: {deviceId: 'p-dur', latitude: lat, longitude: lng, accuracy: 10, stopped: true, updatedAt: at(seconds)}})
    const entered = await send(poi.lon, poi.lat, 0)
    expect(entered.body.events.map((e: any) => e.type)).toEqual(['user.entered_place'])
    const away = await send(poi.lon, poi.lat + 0.01, 90)
    expect(away.body.events).toMatchObject([{type: 'user.exited_place', place: {name: poi.name}, duration: 1.5}])
    const user = (await server.call('GET', `/v1/users/${away.body.user._id}`, {key: server.keys.testSk})).body.user
    for (const shown of [entered.body.user, away.body.user, away.body.events[0].user, user]) expect(JSON.stringify(shown)).not.toContain('placeEnteredAt')
  })

  it('verifying an event names a place of the imported map, or is refused changing nothing', async () => {
    const entered = await track('p-verify', poi.lon, poi.lat + 0.0002, true)
    const id = entered.body.events[0]._id
    const verify = (body: unknown) => server.call('PUT', `/v1/events/${id}/verification`, {key: server.keys.testSk, body})
    const refused = await verify({verification: 'accept', verifiedPlaceId: 'n000'})
    expect(refused.body.meta).toEqual({code: 400, error: 'invalid_parameter', param: 'verifiedPlaceId',
      message: 'verifiedPlaceId: must be the id of a place of the imported map (its _id in /v1/search/places, such as n4449492349)'})
    expect((await server.call('GET', `/v1/events/${id}`, {key: server.keys.testSk})).body.event.verification).toBeUndefined()
    const accepted = await verify({verification: 'accept', verifiedPlaceId: `${poi.osm_type}${poi.osm_id}`})
    // the place as the event's own `place` carries it
    expect(accepted.body.event.verifiedPlace).toEqual(entered.body.events[0].place)
    expect(accepted.body.event.verifiedPlace).toEqual({_id: `${poi.osm_type}${poi.osm_id}`, name: poi.name, categories: [poi.category],
      location: {type: 'Point', coordinates: [poi.lon, poi.lat]}})
  })

  it('placeFilters keep other categories from generating events; /v1/context answers the place', async () => {
    await setSettings(server.store, false, {'places.placeFilters': {category: [PLACE_CATEGORIES.find((c) => c !== poi.category)!]}})
    const stopped = await track('p2', poi.lon, poi.lat, true)
    expect(stopped.body.events).toEqual([])
    expect(stopped.body.user.place.name).toBe(poi.name)
    await setSettings(server.store, false, {'places.placeFilters': {}})
    const context = await server.call('GET', `/v1/context?coordinates=${poi.lat},${poi.lon}`, {key: server.keys.testPk})
    expect(context.body.place.name).toBe(poi.name)
  })
  it('a place event shows the chain search shows: its slug keys the chain mapping, metadata and placeFilters', async () => {
    const db = server.system.map.db('monaco')!
    // a branded point POI whose brand holds an apostrophe ("McDonald's"): search's slug drops it, a plain kebab case would not
    const poi = db.prepare("SELECT osm_type || osm_id AS id, chain, category, lon, lat FROM places WHERE footprint IS NULL AND chain LIKE '%''%' ORDER BY id").get() as {id: string; chain: string; category: string; lon: number; lat: number}
    expect(poi, 'a branded point POI with an apostrophe in Monaco').toBeDefined()
    const search = async () => (await server.call('GET', `/v1/search/places?near=${poi.lat},${poi.lon}&radius=10&categories=${poi.category}`, {key: server.keys.testPk}))
      .body.places.find((p: any) => p._id === poi.id)
    const slug = (await search()).chain.slug as string
    expect(slug).not.toBe(poi.chain.toLowerCase().replace(/[^a-z0-9]+/g, '-'))
    await setSettings(server.store, false, {
      'places.chainMappings': {[slug]: 'store-chain-apostrophe'}, 'places.chainMetadata': {[slug]: {drive: true}}, 'places.placeFilters': {chain: [slug]},
    })
    try {
      const {distance: _d, ...searched} = await search()
      expect(searched.chain).toEqual({name: poi.chain, slug, externalId: 'store-chain-apostrophe', metadata: {drive: true}})
      const entered = await track('p-chain', poi.lon, poi.lat, true)
      expect(entered.body.events.map((e: any) => [e.type, e.place._id])).toEqual([['user.entered_place', poi.id]])
      const event = entered.body.events[0]
      // the same place, chain and all, in search, the event, user.place, topChains and a verification
      expect(event.place).toEqual(searched)
      expect(entered.body.user.place).toEqual(searched)
      expect(entered.body.user.topChains).toEqual([{name: poi.chain, slug, externalId: 'store-chain-apostrophe', visits: 1}])
      const verified = await server.call('PUT', `/v1/events/${event._id}/verification`, {key: server.keys.testSk, body: {verification: 'accept', verifiedPlaceId: poi.id}})
      expect(verified.body.event.verifiedPlace).toEqual(searched)
      const exited = await track('p-chain', poi.lon, poi.lat + 0.01, false)
      expect(exited.body.events.map((e: any) => [e.type, e.place.chain.slug])).toEqual([['user.exited_place', slug]])
    } finally {
      await setSettings(server.store, false, {'places.chainMappings': {}, 'places.chainMetadata': {}, 'places.placeFilters': {}})
    }
  })
  it('an area POI mapped as a multipolygon is entered inside its outer ring, not in its courtyard (a hole)', async () => {
    // Palais princier (r393226): one part with one hole; its point lies inside the footprint
    const palace = await track('palace', 7.4197909, 43.7312784, true)
    expect(palace.body.events.map((e: any) => [e.type, e.place._id])).toEqual([['user.entered_place', 'r393226']])
    const courtyard = await track('courtyard', 7.420272, 43.731319, true)
    expect(courtyard.body.user.place?._id).not.toBe('r393226')
    const context = await server.call('GET', '/v1/context?coordinates=43.7312784,7.4197909', {key: server.keys.testPk})
    expect(context.body.place._id).toBe('r393226')
  })

  it('topChains: the chains of places entered, most visits first, with the chain mapping\'s externalId', async () => {
    const db = server.system.map.db('monaco')!
    // two branded point POIs of different chains, each with no other POI within 10 m (the fix is on the POI: nearest first)
    const points = db.prepare('SELECT name, chain, lon, lat FROM places WHERE footprint IS NULL AND chain IS NOT NULL ORDER BY id').all() as Array<{name: string; chain: string; lon: number; lat: number}>
    const all = db.prepare('SELECT lon, lat FROM places').all() as Array<{lon: number; lat: number}>
    const alone = points.filter((p) => all.every((q) => (q.lon === p.lon && q.lat === p.lat) || Math.hypot((q.lon - p.lon) * 80_000, (q.lat - p.lat) * 111_000) > 10))
    const [a, b] = alone.filter((p, i) => alone.findIndex((q) => q.chain === p.chain) === i)
    expect(b, 'two lone branded POIs of different chains in Monaco').toBeDefined()
    await setSettings(server.store, false, {'places.chainMappings': {[chainSlug(b.chain)]: 'store-chain-b'}})
    const visit = async (p: {name: string; lon: number; lat: number}) => {
      expect((await track('chains', p.lon, p.lat, true)).body.user.place.name).toBe(p.name)
      return (await track('chains', p.lon, p.lat + 0.01, false)).body.user.topChains
    }
    expect(await visit(a)).toEqual([{name: a.chain, slug: chainSlug(a.chain), visits: 1}])
    await visit(b)
    expect(await visit(b)).toEqual([
      {name: b.chain, slug: chainSlug(b.chain), externalId: 'store-chain-b', visits: 2},
      {name: a.chain, slug: chainSlug(a.chain), visits: 1},
    ])
  })
})

describe('a place\'s chain across regions (Monaco, then test/fixtures/osm/chains.js beside it)', () => {
  let server: TestServer
  let poi: {id: string; chain: string; category: string; lon: number; lat: number}
  beforeAll(async () => {
    server = await startTestServer()
    await importServed(server, MONACO)
    poi = server.system.map.db('monaco')!.prepare("SELECT osm_type || osm_id AS id, chain, category, lon, lat FROM places WHERE chain_wikidata = 'Q38076'").get() as typeof poi
    await setSettings(server.store, false, {'places.enabled': true, 'places.chainMappings': {mcdonalds: 'mcd'}})
  }, 60_000)
  afterAll(() => server.stop())

  /** The chain an entry into Monaco's McDonald's shows, and the one search shows for it. */
  const shown = async (deviceId: string) => {
    const entered = await server.call('POST', '/v1/track', {key: server.keys.testPk, body: {deviceId, latitude: poi.lat, longitude: poi.lon, accuracy: 10, stopped: true}})
    expect(entered.body.events.map((e: any) => e.place._id)).toEqual([poi.id])
    const {places} = (await server.call('GET', `/v1/search/places?near=${poi.lat},${poi.lon}&radius=10&categories=${poi.category}`, {key: server.keys.testPk})).body
    return {event: entered.body.events[0].place.chain, search: places.find((p: any) => p._id === poi.id).chain}
  }

  it('is named as most places of its brand:wikidata are in every region, in events as in search, and follows imports', async () => {
    expect(poi.chain).toBe("McDonald's")
    const alone = {name: "McDonald's", slug: 'mcdonalds', externalId: 'mcd'}
    expect(await shown('across-1')).toEqual({event: alone, search: alone})
    await importServed(server, fixture('chains.osm.pbf'), {add: true})
    const named = {name: 'McDonald’s', slug: 'mcdonalds', externalId: 'mcd'}
    expect(await shown('across-2')).toEqual({event: named, search: named})
    await importServed(server, MONACO)
    expect(server.system.map.regions().map((r) => r.name)).toEqual(['monaco'])
    expect(await shown('across-3')).toEqual({event: alone, search: alone})
  }, 60_000)
})
