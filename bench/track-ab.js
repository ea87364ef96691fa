// bench/track-ab: the in-process cost of a track for two variants of the store, measured together.
// This VM's speed drifts by ±20 % within minutes, so separate runs cannot resolve 10 µs a track. Here
// two copies of one store (bench/track's world: BENCH_SIZE geofences, 10,000 moving devices) run in
// one process, fed the same fixes in alternating batches, so the drift hits both alike. A/A runs of
// 150 rounds read 0.976-0.991 (B, the second store, gains a little): trust a B/A beyond ~5 %.
// B differs by SQL run on its copy (BENCH_B_SQL="DROP INDEX x;PRAGMA y") or by code that reads
// `globalThis.benchB` (true while B's tracks run). Prints µs per track p50/p99 over the
// batches for each, the median of the batches' B/A ratios, and peak RSS. BENCH_PROFILE=dir writes a
// cpuprofile of the measured rounds alone (seeding and warm-up left out).
import {cpSync, mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {loadConfig} from '../dist/config/index.js'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {geofenceEngine} from '../dist/geofences/index.js'
import {insertGeofence} from '../dist/geofences/store.js'
import {createLogger} from '../dist/log.js'
import {startCheckpointer} from '../dist/store/checkpointer.js'
import {write} from '../dist/store/write.js'
import {openSystem} from '../dist/system.js'
import {track} from '../dist/tracking/track.js'
import {peakRss, percentile, profile, report} from './harness.js'
import {DEVICES, geofence, moveDevice} from './track-world.js'

const SIZE = Number(process.env.BENCH_SIZE ?? 100_000)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 150)
const BATCH = Number(process.env.BENCH_BATCH ?? 1000)
const CONCURRENCY = 32
const options = (dataDir) => loadConfig({env: {}, overrides: {dataDir, logLevel: 'silent'}})
const log = createLogger('silent')

const memory = peakRss()
const seed = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-track-ab-'))
const seeding = await openSystem(options(seed), {log})
write(seeding.store, (tx) => {
  for (let i = 0; i < SIZE; i++) insertGeofence(tx, false, {...geofenceInputSchema.parse(geofence(i)), tag: 'bench', externalId: String(i)})
})
seeding.store.sqlite.pragma('wal_checkpoint(TRUNCATE)')
await seeding.close()

async function variant(name, sql) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `loc-bench-track-ab-${name}-`))
  cpSync(seed, dataDir, {recursive: true})
  const system = await openSystem(options(dataDir), {log})
  for (const statement of sql.split(';').filter((s) => s.trim())) system.store.sqlite.exec(statement)
  geofenceEngine(system.store)
  return {name, dataDir, system, checkpointer: startCheckpointer(system.store), deps: {store: system.store, map: system.map}, us: []}
}
const a = await variant('A', process.env.BENCH_A_SQL ?? '')
const b = await variant('B', process.env.BENCH_B_SQL ?? '')

async function run(v, fixes) {
  globalThis.benchB = v === b
  for (let i = 0; i < fixes.length; i += CONCURRENCY) {
    await Promise.all(fixes.slice(i, i + CONCURRENCY).map((f) => track(v.deps, false, f, '127.0.0.1')))
  }
}
const fixes = (n, first) => Array.from({length: n}, (_, i) => moveDevice(first === undefined ? Math.floor(Math.random() * DEVICES) : first + i))
// every device reports once, then a few batches more, as in bench/track; then both settle
for (let d = 0; d < DEVICES; d += BATCH) {
  const batch = fixes(Math.min(BATCH, DEVICES - d), d)
  await run(a, batch)
  await run(b, batch)
}
for (let i = 0; i < 5; i++) {
  const batch = fixes(BATCH)
  await run(a, batch)
  await run(b, batch)
}
for (const v of [a, b]) v.system.store.sqlite.pragma('wal_checkpoint(TRUNCATE)')

const stopProfile = await profile(`track-ab-${SIZE}`)
const ratios = []
for (let r = 0; r < ROUNDS; r++) {
  const batch = fixes(BATCH)
  for (const v of r % 2 ? [b, a] : [a, b]) {
    const start = performance.now()
    await run(v, batch)
    v.us.push(((performance.now() - start) * 1000) / BATCH)
  }
  ratios.push(b.us[r] / a.us[r])
}
await stopProfile()
const sorted = (values) => [...values].sort((x, y) => x - y)
const row = (v) => ({name: `${v.name} µs per track p50 / p99`, value: `${percentile(sorted(v.us), 50).toFixed(1)} / ${percentile(sorted(v.us), 99).toFixed(1)}`, unit: 'µs'})
const events = (v) => v.system.store.sqlite.prepare('SELECT count(*) FROM events').pluck().get()
report(`bench/track-ab — ${SIZE.toLocaleString('en-US')} geofences, ${DEVICES.toLocaleString('en-US')} devices, ${ROUNDS} rounds of ${BATCH} tracks each, A and B alternated in one process`, [
  row(a),
  row(b),
  {name: 'B / A (median of the rounds)', value: percentile(sorted(ratios), 50).toFixed(3)},
  {name: 'B / A quartiles', value: `${percentile(sorted(ratios), 25).toFixed(2)} – ${percentile(sorted(ratios), 75).toFixed(2)}`},
  {name: 'events stored A / B', value: `${events(a)} / ${events(b)}`},
  {name: 'peak RSS (both stores)', value: memory.stop(), unit: 'MB'},
])
for (const v of [a, b]) {
  await v.checkpointer.stop()
  await v.system.close()
  rmSync(v.dataDir, {recursive: true, force: true})
}
rmSync(seed, {recursive: true, force: true})
