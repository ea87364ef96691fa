import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {startTestServer, type TestServer} from '../helpers.js'

// Cursors name a timestamp, and rows may share one (a track's events their `createdAt`, users
// tracked together their `updatedAt`): a page must never end inside such a run, or the next
// page's cursor skips the run's rest.
let s: TestServer

beforeAll(async () => {
  s = await startTestServer()
})
afterAll(async () => {
  await s.stop()
})

const track = (body: Record<string, unknown>) => s.call('POST', '/v1/track', {key: s.keys.testPk, body: {accuracy: 5, foreground: true, ...body}})

/** Every page of `path` (newest first) with the cursor `param` set to the last item's `field`. */
async function pages(path: string, items: string, param: string, field: string) {
  const found: Array<{ids: string[]; hasMore: boolean}> = []
  let cursor = ''
  for (let i = 0; i < 10; i++) {
    const r = await s.call('GET', `${path}${cursor}`, {key: s.keys.testSk})
    expect(r.status).toBe(200)
    const rows = r.body[items] as Array<Record<string, string>>
    found.push({ids: rows.map((row) => row._id), hasMore: r.body.meta.hasMore})
    if (!r.body.meta.hasMore) break
    cursor = `&${param}=${encodeURIComponent(rows.at(-1)![field])}`
  }
  return found
}

describe('paging through rows that share a timestamp', () => {
  const T = ['2026-01-01T10:00:00.000Z', '2026-01-01T11:00:00.000Z', '2026-01-01T12:00:00.000Z']

  it('users: a page ends before a run of one updatedAt, or holds the run whole', async () => {
    // 2 users at T[0], 3 at T[1], 2 at T[2]
    const ids: string[] = []
    for (const [i, at] of [T[0], T[0], T[1], T[1], T[1], T[2], T[2]].entries()) {
      const r = await track({deviceId: `tied-${i}`, latitude: 43.6, longitude: 7.3, updatedAt: at})
      expect(r.body.user.updatedAt).toBe(at)
      ids.push(r.body.user._id)
    }
    const newestFirst = [ids[6], ids[5], ids[4], ids[3], ids[2], ids[1], ids[0]]
    const byThree = await pages('/v1/users?limit=3', 'users', 'updatedBefore', 'updatedAt')
    expect(byThree.map((p) => p.ids.length)).toEqual([2, 3, 2])
    expect(byThree.map((p) => p.hasMore)).toEqual([true, true, false])
    expect(byThree.flatMap((p) => p.ids)).toEqual(newestFirst)
    // the run of 3 outnumbers a page of 2: it comes whole
    const byTwo = await pages('/v1/users?limit=2', 'users', 'updatedBefore', 'updatedAt')
    expect(byTwo.map((p) => p.ids.length)).toEqual([2, 3, 2])
    expect(byTwo.flatMap((p) => p.ids)).toEqual(newestFirst)
    const byOne = await pages('/v1/users?limit=1', 'users', 'updatedBefore', 'updatedAt')
    expect(byOne.flatMap((p) => p.ids)).toEqual(newestFirst)
  })

  it("events: a track's events share their createdAt and page together, listed alone or by user", async () => {
    for (const [id, radius] of [['a', 50], ['b', 60], ['c', 70]] as const) {
      await s.call('PUT', `/v1/geofences/nest/${id}`, {key: s.keys.testSk, body: {description: id, type: 'circle', coordinates: [7.4, 43.71], radius}})
    }
    const entered = await track({deviceId: 'nester', latitude: 43.71, longitude: 7.4, updatedAt: T[1]})
    expect(entered.body.events.map((e: any) => `${e.type} ${e.createdAt}`)).toEqual(['a', 'b', 'c'].map(() => `user.entered_geofence ${T[1]}`))
    const exited = await track({deviceId: 'nester', latitude: 43.72, longitude: 7.4, updatedAt: T[2]})
    expect(exited.body.events).toHaveLength(3)
    const user = exited.body.user._id as string
    const all = [...exited.body.events, ...entered.body.events] as Array<{_id: string; createdAt: string}>
    const newestFirst = all.sort((a, b) => (a.createdAt !== b.createdAt ? (a.createdAt < b.createdAt ? 1 : -1) : a._id < b._id ? 1 : -1)).map((e) => e._id)
    for (const path of ['/v1/events?limit=2', `/v1/events?userId=${user}&limit=2`, '/v1/events?limit=4&types=user.entered_geofence,user.exited_geofence']) {
      const found = await pages(path, 'events', 'createdBefore', 'createdAt')
      expect(found.map((p) => p.ids.length), path).toEqual([3, 3])
      expect(found.map((p) => p.hasMore), path).toEqual([true, false])
      expect(found.flatMap((p) => p.ids), path).toEqual(newestFirst)
    }
  })
})
