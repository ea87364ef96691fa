import {rmSync} from 'node:fs'
import {afterAll, describe, expect, it} from 'vitest'
import {createUsageMeter} from '../../src/project/usage.js'
import {openStore} from '../../src/store/db.js'
import {tempDir} from '../helpers.js'

const dir = tempDir()
afterAll(() => rmSync(dir, {recursive: true, force: true}))

describe('usage meter', () => {
  it('counts per environment and month, resumes from the table, and starts from zero in a new month', async () => {
    const store = await openStore(dir)
    let now = Date.parse('2026-11-30T23:59:59Z')
    const meter = createUsageMeter(store, {now: () => now})
    for (let i = 0; i < 3; i++) meter.count(false)
    meter.count(true)
    expect([meter.used(false), meter.used(true)]).toEqual([3, 1])
    meter.close()

    const again = createUsageMeter(store, {now: () => now})
    expect([again.used(false), again.used(true)]).toEqual([3, 1])
    again.count(false)
    now = Date.parse('2026-12-01T00:00:01Z')
    expect([again.used(false), again.used(true)]).toEqual([0, 0])
    again.count(false)
    again.close()
    expect(store.sqlite.prepare('SELECT live, month, requests FROM usage ORDER BY month, live').all()).toEqual([
      {live: 0, month: '2026-11', requests: 4},
      {live: 1, month: '2026-11', requests: 1},
      {live: 0, month: '2026-12', requests: 1},
    ])
    await store.close()
  })
})
