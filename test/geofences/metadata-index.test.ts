import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'

/**
 * `GET /v1/geofences?metadata[k]=v` reads `geofence_metadata` (migration 004, kept by triggers)
 * instead of parsing every geofence's JSON: with 100,000 geofences a filtered page is a few index
 * reads, whatever the filter matches.
 */
describe('metadata filters on 100,000 geofences', () => {
  let server: TestServer
  beforeAll(async () => {
    server = await startTestServer()
    // fixture rows straight in SQL (the triggers still run): 100k through the API would take minutes
    server.store.sqlite.exec(`
      WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 100000)
      INSERT INTO geofences (id, live, tag, external_id, description, type, geometry, center_lng, center_lat, radius,
        metadata, enabled, min_lng, min_lat, max_lng, max_lat, created_at, updated_at)
      SELECT printf('g%023d', i), 0, 'bulk', 'e' || i, 'd', 'circle', '{"type":"Polygon","coordinates":[]}', 7.4, 43.7, 100,
        json_object('k' || (i % 10), 'v' || (i % 1000), 'n', i % 7, 'b', json(CASE WHEN i % 2 THEN 'true' ELSE 'false' END)),
        1, 7.4, 43.7, 7.5, 43.8, strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch'), strftime('%Y-%m-%dT%H:%M:%fZ', 1700000000 + i, 'unixepoch')
      FROM n`)
  }, 60_000)
  afterAll(async () => {
    await server?.stop()
  })

  const list = (query: string) => server.call('GET', `/v1/geofences?${query}`, {key: server.keys.testSk})
  /** The median time of 7 lists. */
  const medianMs = async (query: string) => {
    const each: number[] = []
    for (let i = 0; i < 7; i++) {
      const start = performance.now()
      await list(query)
      each.push(performance.now() - start)
    }
    return each.sort((a, b) => a - b)[3]
  }

  it('answers text, number and boolean filters as a scan of the JSON would', async () => {
    const text = await list('metadata[k3]=v13&limit=5')
    expect(text.body.geofences.map((g: any) => g.externalId)).toEqual(['e99013', 'e98013', 'e97013', 'e96013', 'e95013'])
    expect(text.body.meta.hasMore).toBe(true)
    const number = await list('metadata[n]=3&metadata[b]=true&limit=3')
    for (const g of number.body.geofences) expect(g.metadata).toMatchObject({n: 3, b: true})
    expect(number.body.geofences.map((g: any) => g.externalId)).toEqual(['e99991', 'e99977', 'e99963'])
    const none = await list('metadata[k0]=nothing&limit=1')
    expect(none.body).toMatchObject({meta: {hasMore: false}, geofences: []})
  })

  it('reads a page of 1,000 in chunks without losing or repeating a row', async () => {
    const page = await list('metadata[n]=3&limit=1000')
    const expected = server.store.sqlite.prepare(`SELECT external_id FROM geofences WHERE json_extract(metadata, '$.n') = 3
      ORDER BY updated_at DESC, id DESC LIMIT 1000`).pluck().all()
    expect(page.body.geofences.map((g: any) => g.externalId)).toEqual(expected)
    expect(page.body.meta.hasMore).toBe(true)
  })

  it('walks the rarest of several filters, whichever order they come in', async () => {
    // b=true matches 50,000 geofences, k3=v13 matches 100: walking b and checking k3 read 50,000 entries
    const rare = await list('metadata[b]=true&metadata[k3]=v13&limit=1000')
    const expected = server.store.sqlite.prepare(`SELECT external_id FROM geofences WHERE json_extract(metadata, '$.b') = 1
      AND json_extract(metadata, '$.k3') = 'v13' ORDER BY updated_at DESC, id DESC`).pluck().all()
    expect(rare.body.geofences.map((g: any) => g.externalId)).toEqual(expected)
    expect(await medianMs('metadata[b]=true&metadata[k3]=v13&limit=10')).toBeLessThan(await medianMs('metadata[k3]=v13&limit=10') * 3 + 10)
  })

  it('pages with updatedBefore through the index', async () => {
    const first = await list('metadata[k3]=v13&limit=2')
    const last = first.body.geofences.at(-1).updatedAt
    const next = await list(`metadata[k3]=v13&limit=2&updatedBefore=${encodeURIComponent(last)}`)
    expect(next.body.geofences.map((g: any) => g.externalId)).toEqual(['e97013', 'e96013'])
  })

  it('costs a filtered page about what an unfiltered one costs (a JSON scan took 50+ ms)', async () => {
    const plain = await medianMs('limit=10')
    for (const query of ['metadata[k0]=nothing', 'metadata[k0]=v0', 'metadata[n]=1', 'metadata[k0]=nothing&metadata[n]=1', 'metadata[b]=true&tag=bulk']) {
      expect(await medianMs(`${query}&limit=10`), query).toBeLessThan(plain * 3 + 10)
    }
  })

  it('follows updates and deletes (triggers)', async () => {
    const sk = server.keys.testSk
    await server.call('PUT', '/v1/geofences/bulk/e1', {key: sk, body: {description: 'd', type: 'circle', coordinates: [7.4, 43.7], radius: 100, metadata: {fresh: 'yes'}}})
    expect((await list('metadata[fresh]=yes')).body.geofences.map((g: any) => g.externalId)).toEqual(['e1'])
    expect((await list('metadata[k1]=v1&limit=1000')).body.geofences.map((g: any) => g.externalId)).not.toContain('e1')
    await server.call('DELETE', '/v1/geofences/bulk/e1', {key: sk})
    expect((await list('metadata[fresh]=yes')).body.geofences).toEqual([])
  })
})
