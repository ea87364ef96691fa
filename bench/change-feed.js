// bench/change-feed: what following the change feed costs. The read every consumer of derived state
// pays when nothing changed (at most once per millisecond), against the PRAGMA data_version read the
// caches used before (the baseline, same run); then applying one change incrementally and
// rebuilding a follower over 100,000 geofences.
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {insertGeofence, upsertGeofenceByKey} from '../dist/geofences/store.js'
import {openStore} from '../dist/store/db.js'
import {write} from '../dist/store/write.js'
import {peakRss, report} from './harness.js'

const COUNT = Number(process.env.BENCH_GEOFENCES ?? 100_000)
const ITERATIONS = 200_000
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-feed-'))
const store = await openStore(dataDir)
const memory = peakRss()
const input = geofenceInputSchema.parse({description: 'Store', type: 'circle', coordinates: [7.42, 43.73], radius: 100})
write(store, (tx) => {
  for (let i = 0; i < COUNT; i++) insertGeofence(tx, false, {...input, tag: 'bench', externalId: String(i)})
})

/** A follower as the geofence index will be: a map of rows, one row re-read per change. */
const readAll = store.sqlite.prepare('SELECT id, center_lng, center_lat, radius FROM geofences WHERE live = 0').raw()
const readOne = store.sqlite.prepare('SELECT id, center_lng, center_lat, radius FROM geofences WHERE id = ?').raw()
const rows = new Map()
const follower = {
  kinds: ['geofences'],
  rebuild() {
    rows.clear()
    for (const row of readAll.iterate()) rows.set(row[0], row)
  },
  apply(changes) {
    for (const c of changes) {
      const row = c.deleted ? undefined : readOne.get(c.ref)
      if (row) rows.set(c.ref, row)
      else rows.delete(c.ref)
    }
  },
}

const perCallUs = (fn, n = ITERATIONS) => {
  for (let i = 0; i < n / 10; i++) fn()
  const start = process.hrtime.bigint()
  for (let i = 0; i < n; i++) fn()
  return Number(process.hrtime.bigint() - start) / n / 1000
}

const rebuildStart = performance.now()
store.feed.follow(follower)
const rebuildMs = performance.now() - rebuildStart

/** Per simulated request: `fn`, then the end of the callback (microtasks run), minus an empty request. */
const perRequestUs = async (fn, n = ITERATIONS) => {
  const loop = async (body) => {
    const start = process.hrtime.bigint()
    for (let i = 0; i < n; i++) {
      body()
      await null
    }
    return Number(process.hrtime.bigint() - start) / n / 1000
  }
  await loop(fn)
  return (await loop(fn)) - (await loop(() => undefined))
}
const dataVersion = store.sqlite.prepare('PRAGMA data_version').pluck()
const baselineUs = await perRequestUs(() => dataVersion.get())
// touch() forces the read, as when a millisecond has passed since the last one
const readUs = await perRequestUs(() => {
  store.feed.touch()
  store.feed.catchUp()
})
// within a millisecond of a read, every consumer pays only the clock
const sameTurnUs = perCallUs(() => store.feed.catchUp())

const APPLY = 2000
const applyStart = performance.now()
for (let i = 0; i < APPLY; i++) {
  await upsertGeofenceByKey(store, false, 'bench', String(i), {...input, description: `Store ${i}`})
  store.feed.catchUp()
}
const writeAndApplyUs = ((performance.now() - applyStart) * 1000) / APPLY
const writeOnlyStart = performance.now()
for (let i = 0; i < APPLY; i++) await upsertGeofenceByKey(store, false, 'bench', String(i), {...input, description: `Store ${i}b`})
const writeOnlyUs = ((performance.now() - writeOnlyStart) * 1000) / APPLY
store.feed.catchUp()

report(`bench/change-feed — ${COUNT.toLocaleString('en-US')} geofences, one follower (a map of rows), ${ITERATIONS.toLocaleString('en-US')} calls per figure, in process`, [
  {name: 'feed read, nothing changed', value: readUs.toFixed(2), unit: 'µs', target: '≤ 5 µs per request', ok: readUs <= 5},
  {name: 'catch-up within the millisecond', value: sameTurnUs.toFixed(3), unit: 'µs'},
  {name: 'baseline: PRAGMA data_version read', value: baselineUs.toFixed(2), unit: 'µs'},
  {name: 'feed read / data_version read', value: `${((readUs / baselineUs) * 100).toFixed(0)} %`},
  {name: 'upsert + incremental apply', value: writeAndApplyUs.toFixed(1), unit: 'µs'},
  {name: 'upsert alone (baseline)', value: writeOnlyUs.toFixed(1), unit: 'µs'},
  {name: 'follower rebuild (100k rows)', value: rebuildMs.toFixed(0), unit: 'ms'},
  {name: 'rows followed', value: rows.size},
  {name: 'peak RSS', value: memory.stop(), unit: 'MB'},
])
await store.close()
rmSync(dataDir, {recursive: true, force: true})
