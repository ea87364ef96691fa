// bench/csv-import: a generated 100,000-row geofence CSV (circles and polygons) through
// `importGeofences` (stream → validate → stage → one transaction), a re-import of the same file with
// nothing changed, and syncs of an unchanged file from a local HTTP server (ETag, then SHA-256).
// Baseline in the same run: the same rows written one upsert per row (the API's write path).
import {createWriteStream, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {loadConfig} from '../dist/config/index.js'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {upsertGeofenceByKey} from '../dist/geofences/store.js'
import {createLogger} from '../dist/log.js'
import {readCsv} from '../dist/sync/csv.js'
import {readHeader, rowInput} from '../dist/sync/header.js'
import {GEOFENCE_CSV, importGeofences} from '../dist/sync/import.js'
import {runSync} from '../dist/sync/run.js'
import {addSyncSource, syncSource} from '../dist/sync/sources.js'
import {openSystem} from '../dist/system.js'
import {peakRss, report} from './harness.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const BASELINE_ROWS = Math.min(ROWS, 10_000)
const dir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-csv-'))
const file = path.join(dir, 'geofences.csv')

/** A deterministic file: every third row a polygon, metadata and operating-hours columns on all. */
async function generate() {
  const out = createWriteStream(file)
  out.write('description,type,tag,externalId,coordinates,radius,enabled,metadata.kind,metadata.n,operatingHours.mon,operatingHours.sat\r\n')
  let seed = 42
  const rand = () => ((seed = (seed * 1103515245 + 12345) % 2 ** 31) / 2 ** 31)
  for (let i = 0; i < ROWS; i++) {
    const lng = 7.40 + rand() * 0.04
    const lat = 43.72 + rand() * 0.04
    let line
    if (i % 3 === 2) {
      const d = 0.001 + rand() * 0.002
      const ring = [[lng, lat], [lng + d, lat], [lng + d, lat + d], [lng, lat + d], [lng, lat]].map(([x, y]) => `[${x.toFixed(6)},${y.toFixed(6)}]`)
      line = `Zone ${i},polygon,bench,${i},"[${ring.join(',')}]",,true,zone,${i},09:00-17:00,`
    } else {
      line = `Store ${i},circle,bench,${i},"[${lng.toFixed(6)},${lat.toFixed(6)}]",${50 + Math.floor(rand() * 450)},true,store,${i},09:00-17:00,10:00-14:00`
    }
    if (!out.write(line + '\r\n')) await new Promise((resolve) => out.once('drain', resolve))
  }
  await new Promise((resolve) => out.end(resolve))
}

await generate()
const config = loadConfig({env: {}, overrides: {dataDir: dir, logLevel: 'silent', sync: {allowPrivateUrls: true}}})
const system = await openSystem(config, {log: createLogger('silent')})
/** Wall time, and this process's CPU time: on a machine loaded by others the CPU time is what an idle core would take. */
const time = async (fn) => {
  const start = performance.now()
  const cpu = process.cpuUsage()
  const value = await fn()
  const used = process.cpuUsage(cpu)
  return {value, s: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6}
}

global.gc?.()
const rss = peakRss()
const first = await time(() => importGeofences(system, file, {live: false}))
const peakMb = rss.stop()
if (first.value.created !== ROWS) throw new Error(`import: ${JSON.stringify({...first.value, failures: first.value.failures.slice(0, 3)})}`)
const again = await time(() => importGeofences(system, file, {live: false}))
if (again.value.unchanged !== ROWS) throw new Error(`re-import: ${JSON.stringify(again.value)}`)

// baseline: the same parse and validation, then one upsert (one transaction) per row
const baseline = await time(async () => {
  let header
  let n = 0
  for await (const {row, cells} of readCsv(file)) {
    if (!header) {
      header = readHeader(GEOFENCE_CSV, cells)
      continue
    }
    const parsed = rowInput(geofenceInputSchema, header, row, cells)
    upsertGeofenceByKey(system.store, true, parsed.value.tag, parsed.value.externalId, parsed.value)
    if (++n === BASELINE_ROWS) break
  }
})

// syncs: the first imports (claims the rows for the source), the next find the file unchanged
const body = readFileSync(file)
let etags = true
const server = createServer((req, res) => {
  const etag = '"bench-v1"'
  if (etags && req.headers['if-none-match'] === etag) return res.writeHead(304).end()
  res.writeHead(200, etags ? {etag} : {}).end(body)
})
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve))
const source = addSyncSource(system.store, config, false, {url: `http://127.0.0.1:${server.address().port}/geofences.csv`, prune: true})
const claim = await time(() => runSync(system, source, 'cli'))
const byEtag = await time(() => runSync(system, syncSource(system.store, source.id), 'cli'))
etags = false
const byHash = await time(() => runSync(system, syncSource(system.store, source.id), 'cli'))
if (claim.value.status !== 'succeeded' || byEtag.value.status !== 'skipped' || byHash.value.status !== 'skipped') {
  throw new Error(`sync: ${[claim, byEtag, byHash].map((r) => `${r.value.status} ${r.value.error}`).join(" | ")}`)
}
server.close()
await system.close()
rmSync(dir, {recursive: true, force: true})

const rate = ROWS / first.s
const baselineRate = BASELINE_ROWS / baseline.s
report(`bench/csv-import: ${ROWS.toLocaleString('en-US')} rows (${(body.length / 1e6).toFixed(1)} MB), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`, [
  {name: 'import (all created)', value: first.s, unit: 's', target: '≤ 10 s', ok: first.s <= 10},
  {name: '  CPU time', value: first.cpu, unit: 's', target: '≤ 10 s', ok: first.cpu <= 10},
  {name: '  throughput', value: Math.round(rate), unit: 'rows/s'},
  {name: '  peak RSS', value: peakMb, unit: 'MB', target: '≤ 300 MB', ok: peakMb <= 300},
  {name: 're-import, nothing changed', value: again.s, unit: 's', target: '≤ 5 s', ok: again.s <= 5},
  {name: '  CPU time', value: again.cpu, unit: 's', target: '≤ 5 s', ok: again.cpu <= 5},
  {name: `baseline: upsert per row (${BASELINE_ROWS.toLocaleString('en-US')})`, value: Math.round(baselineRate), unit: 'rows/s'},
  {name: '  import ÷ baseline', value: rate / baselineRate, unit: '×'},
  {name: 'sync, first (claims every row)', value: claim.s, unit: 's'},
  {name: 'sync of unchanged file (ETag)', value: byEtag.s, unit: 's', target: '≤ 1 s', ok: byEtag.s <= 1},
  {name: 'sync of unchanged file (SHA-256)', value: byHash.s, unit: 's', target: '≤ 1 s', ok: byHash.s <= 1},
  {name: '  CPU time', value: byHash.cpu, unit: 's'},
])
