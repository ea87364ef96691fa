import {execFile} from 'node:child_process'
import {rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {promisify} from 'node:util'
import Database from 'better-sqlite3'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/config/index.js'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {createGeofence} from '../../src/geofences/store.js'
import {createLogger} from '../../src/log.js'
import {openSystem} from '../../src/system.js'
import {tempDir} from '../helpers.js'

const run = promisify(execFile)
const dir = tempDir()
const dataDir = path.join(dir, 'data')

async function loc(...args: string[]): Promise<{code: number; stdout: string; stderr: string}> {
  try {
    const {stdout, stderr} = await run('node', [path.resolve('bin/run.js'), ...args, '--data-dir', dataDir], {env: {...process.env, LOC_LOG_LEVEL: 'silent'}})
    return {code: 0, stdout, stderr}
  } catch (error) {
    const e = error as {code: number; stdout: string; stderr: string}
    return {code: e.code, stdout: e.stdout, stderr: e.stderr}
  }
}

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
})
