import {rmSync} from 'node:fs'
import Database from 'better-sqlite3'
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

  it('flushes on its timer without blocking while another process holds the write lock, and loses no count', async () => {
    const store = await openStore(tempDir())
    const meter = createUsageMeter(store, {flushMs: 20})
    const other = new Database(store.file)
    other.exec('BEGIN IMMEDIATE')
    for (let i = 0; i < 5; i++) meter.count(false)
    let ticks = 0
    const ticking = setInterval(() => ticks++, 5)
    await new Promise((r) => setTimeout(r, 300))
    // timers kept running: the flush waits in the event loop, not in SQLite's busy handler
    expect(ticks).toBeGreaterThan(20)
    expect(meter.used(false)).toBe(5)
    other.exec('COMMIT')
    await new Promise((r) => setTimeout(r, 100))
    clearInterval(ticking)
    expect(store.sqlite.prepare('SELECT requests FROM usage WHERE live = 0').pluck().get()).toBe(5)
    expect(meter.used(false)).toBe(5)
    meter.count(false)
    meter.close()
    expect(store.sqlite.prepare('SELECT requests FROM usage WHERE live = 0').pluck().get()).toBe(6)
    other.close()
    await store.close()
  })
})
