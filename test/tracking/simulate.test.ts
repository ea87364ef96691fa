import {rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/config/index.js'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {createGeofence} from '../../src/geofences/store.js'
import {createLogger} from '../../src/log.js'
import {openSystem} from '../../src/system.js'
import {runLoc, tempDir} from '../helpers.js'

const dir = tempDir()
const dataDir = path.join(dir, 'data')

const loc = (...args: string[]) => runLoc([...args, '--data-dir', dataDir])

function count(table: string): number {
  const db = new Database(path.join(dataDir, 'loc.db'), {readonly: true})
  try {
    return db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
  } finally {
    db.close()
  }
}

const GPX = `<?xml version="1.0"?>
<gpx version="1.1" creator="test"><trk><trkseg>
  <trkpt lat="43.7377" lon="7.42"><time>2026-01-05T08:00:00Z</time></trkpt>
  <trkpt lat="43.7355" lon="7.42"><time>2026-01-05T08:01:00Z</time></trkpt>
  <trkpt lat="43.7368" lon="7.42"><time>2026-01-05T08:05:30Z</time></trkpt>
</trkseg></trk></gpx>`

describe('loc simulate', () => {
  beforeAll(async () => {
    const system = await openSystem(loadConfig({env: {}, overrides: {dataDir}}), {log: createLogger('silent')})
    await createGeofence(system.store, false, {...geofenceInputSchema.parse({description: 'Store 1', type: 'circle', coordinates: [7.42, 43.735], radius: 100}), tag: 'store', externalId: '1'})
    await system.close()
    writeFileSync(path.join(dir, 'walk.gpx'), GPX)
    writeFileSync(path.join(dir, 'walk.csv'), 'time,lat,lng,accuracy\n2026-01-05T08:00:00Z,43.735,7.42,10\n2026-01-05T08:02:00Z,43.745,7.42,10\n')
    writeFileSync(path.join(dir, 'bad.csv'), 'time,lat,lng\n2026-01-05T08:00:00Z,95,7.42\n')
    const refused: Record<string, string> = {
      'backwards.csv': 'time,lat,lng\n2026-01-05T08:05:00Z,43.735,7.42\n2026-01-05T08:04:00Z,43.745,7.42\n',
      'future.csv': `time,lat,lng\n2026-01-05T08:05:00Z,43.735,7.42\n${new Date(Date.now() + 3_600_000).toISOString()},43.745,7.42\n`,
      'untimed.csv': 'time,lat,lng\n2026-01-05T08:05:00Z,43.735,7.42\n,43.745,7.42\n',
      'accuracy.csv': 'lat,lng,accuracy\n43.735,7.42,10\n43.745,7.42,0\n',
      'stopped.csv': 'lat,lng,stopped\n43.735,7.42,true\n43.745,7.42,bogus\n',
      'unset-clock.csv': 'time,lat,lng\n1970-01-01T00:00:00Z,43.735,7.42\n1970-01-01T00:00:05Z,43.745,7.42\n',
      'vague.csv': 'lat,lng,accuracy\n43.735,7.42,10\n43.745,7.42,1e12\n',
      'hex.csv': 'lat,lng\n0x10,7.42\n43.745,7.42\n',
    }
    for (const [name, text] of Object.entries(refused)) writeFileSync(path.join(dir, name), text)
    writeFileSync(path.join(dir, 'timeless.csv'), 'lat,lng\n43.735,7.42\n43.745,7.42\n')
  })
  afterAll(() => rmSync(dir, {recursive: true, force: true}))

  it('replays a GPX trace with --dry-run: each event with its time, a summary, and the store unchanged', async () => {
    const res = await loc('simulate', path.join(dir, 'walk.gpx'), '--user', 'u1', '--dry-run')
    expect(res.code).toBe(0)
    expect(res.stdout.trim().split('\n').map((l) => l.replace(/\s+/g, ' '))).toEqual([
      '2026-01-05T08:01:00.000Z user.entered_geofence store/1 Store 1 confidence=3',
      '2026-01-05T08:05:30.000Z user.exited_geofence store/1 Store 1 confidence=3 duration=4.5 min',
      '3 points, 2 events: 1 user.entered_geofence, 1 user.exited_geofence (dry run: nothing kept)',
    ])
    expect(count('users')).toBe(0)
  }, 120_000)

  it('without --dry-run the user and events are kept; a bad trace is refused with its line', async () => {
    const res = await loc('simulate', path.join(dir, 'walk.csv'), '--user', 'u2')
    expect(res.stdout).toMatch(/2 points, 2 events/)
    expect(count('events')).toBe(2)
    const bad = await loc('simulate', path.join(dir, 'bad.csv'), '--user', 'u3')
    expect(bad.code).toBe(2)
    expect(bad.stderr).toMatch(/error \[invalid_parameter\]: line 2: latitude -90 to 90/)
  }, 120_000)

  it('refuses an empty or overlong --user or --device as the API refuses such a userId or deviceId, writing nothing', async () => {
    const before = [count('users'), count('events')]
    for (const [flags, message] of [
      [['--user', ''], '--user: non-empty string'],
      [['--user', 'u5', '--device', ''], '--device: non-empty string'],
      [['--user', 'x'.repeat(257)], '--user: string up to 256 characters'],
    ] as const) {
      const res = await loc('simulate', path.join(dir, 'walk.csv'), ...flags)
      expect({flags, code: res.code, stderr: res.stderr}).toEqual({flags, code: 2, stderr: `error [invalid_parameter]: ${message}\n`})
    }
    expect([count('users'), count('events')]).toEqual(before)
  }, 120_000)

  it('refuses a trace out of order, from the future or an unset clock, partly timed, or with a bad number, accuracy or flag, with its line, writing nothing', async () => {
    const before = count('events')
    for (const [name, message] of [
      ['backwards.csv', 'line 3: time before the one of line 2'],
      ['future.csv', 'line 3: time in the future'],
      ['untimed.csv', 'line 3: time missing'],
      ['accuracy.csv', 'line 3: accuracy a number greater than 0'],
      ['stopped.csv', 'line 3: stopped true or false'],
      ['unset-clock.csv', 'line 2: time before 2000-01-01 (a clock never set)'],
      ['vague.csv', 'line 3: accuracy a number greater than 0 and at most 20000000 (metres)'],
      ['hex.csv', 'line 2: latitude -90 to 90'],
    ]) {
      const res = await loc('simulate', path.join(dir, name), '--user', `refused-${name}`)
      expect(res.code, name).toBe(2)
      expect(res.stderr, name).toContain(`error [invalid_parameter]: ${message}`)
    }
    expect(count('events')).toBe(before)
  }, 120_000)

  it('stamps a trace without times a second apart up to now, and refuses a replay before the user\'s last update', async () => {
    const started = new Date().toISOString()
    const res = await loc('simulate', path.join(dir, 'timeless.csv'), '--user', 'u4')
    expect(res.code).toBe(0)
    const times = res.stdout.trim().split('\n').slice(0, -1).map((l) => l.split(/\s+/)[0])
    expect(times).toHaveLength(2)
    const finished = new Date().toISOString()
    // the exit at the last point: now, not a second later
    expect(times[1] >= started && times[1] <= finished).toBe(true)
    expect(Date.parse(times[1]) - Date.parse(times[0])).toBe(1000)

    const events = count('events')
    const again = await loc('simulate', path.join(dir, 'walk.csv'), '--user', 'u2')
    expect(again.code).toBe(1)
    expect(again.stderr).toMatch(/error \[conflict\]: user: u2 was last updated at 2026-01-05T08:02:00.000Z, not before the trace's first point \(2026-01-05T08:00:00.000Z\)/)
    expect(count('events')).toBe(events)
  }, 120_000)
})
