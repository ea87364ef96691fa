// bench/csv-import: a generated 100,000-row geofence CSV (circles and polygons) through
// `importGeofences` (stream → validate → stage → one transaction), a re-import of the same file with
// nothing changed, and syncs of an unchanged file from a local HTTP server (ETag, then SHA-256).
// Each build is measured in its own child process (peak RSS is the child's): the current one, and
// with `BENCH_BASELINE=<rev>` that revision's beside it (harness.js serverScripts). The current
// build also writes 10,000 rows one upsert per row (the API's write path) as a second baseline.
import {fork} from 'node:child_process'
import {createWriteStream, mkdtempSync, readFileSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath, pathToFileURL} from 'node:url'
import {peakRss, report, serverScripts} from './harness.js'

const ROWS = Number(process.env.BENCH_ROWS ?? 100_000)
const BASELINE_ROWS = Math.min(ROWS, 10_000)

/** A deterministic file: every third row a polygon, metadata and operating-hours columns on all. */
async function generate(file) {
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

/** Wall time, and this process's CPU time: on a machine loaded by others the CPU time is what an idle core would take. */
async function time(fn) {
  const start = performance.now()
  const cpu = process.cpuUsage()
  const value = await fn()
  const used = process.cpuUsage(cpu)
  return {value, s: (performance.now() - start) / 1000, cpu: (used.user + used.system) / 1e6}
}

/** The child: imports, re-imports and syncs `file` with the build in `dist`; sends its figures. */
async function measure(dist, file, perRow) {
  const load = (module) => import(pathToFileURL(path.join(dist, module)).href)
  const [{loadConfig}, {createLogger}, {openSystem}, {GEOFENCE_CSV, importGeofences}, {runSync}, {addSyncSource, syncSource}] = await Promise.all(
    ['config/index.js', 'log.js', 'system.js', 'sync/import.js', 'sync/run.js', 'sync/sources.js'].map(load))
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-csv-db-'))
  const config = loadConfig({env: {}, overrides: {dataDir: dir, logLevel: 'silent', sync: {allowPrivateUrls: true}}})
  const system = await openSystem(config, {log: createLogger('silent')})

  const rss = peakRss()
  const first = await time(() => importGeofences(system, file, {live: false}))
  const peakMb = rss.stop()
  if (first.value.created !== ROWS) throw new Error(`import: ${JSON.stringify({...first.value, failures: first.value.failures.slice(0, 3)})}`)
  const again = await time(() => importGeofences(system, file, {live: false}))
  if (again.value.unchanged !== ROWS) throw new Error(`re-import: ${JSON.stringify(again.value)}`)

  // the same parse and validation, then one upsert (one transaction) per row
  let perRowRate
  if (perRow) {
    const [{readCsv}, {readHeader, rowInput}, {geofenceInputSchema}, {upsertGeofenceByKey}] = await Promise.all(
      ['sync/csv.js', 'sync/header.js', 'geofences/input.js', 'geofences/store.js'].map(load))
    const upserts = await time(async () => {
      let header
      let n = 0
      for await (const {row, cells} of readCsv(file)) {
        if (!header) {
          header = readHeader(GEOFENCE_CSV, cells)
          continue
        }
        const parsed = rowInput(geofenceInputSchema, header, row, cells)
        await upsertGeofenceByKey(system.store, true, parsed.value.tag, parsed.value.externalId, parsed.value)
        if (++n === BASELINE_ROWS) break
      }
    })
    perRowRate = BASELINE_ROWS / upserts.s
  }

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
    throw new Error(`sync: ${[claim, byEtag, byHash].map((r) => `${r.value.status} ${r.value.error}`).join(' | ')}`)
  }
  server.close()
  await system.close()
  rmSync(dir, {recursive: true, force: true})
  const figures = ({s, cpu}) => ({s, cpu})
  return {first: figures(first), peakMb, again: figures(again), perRowRate, claim: figures(claim), byEtag: figures(byEtag), byHash: figures(byHash)}
}

if (process.env.CSV_BENCH_DIST) {
  process.send(await measure(process.env.CSV_BENCH_DIST, process.env.CSV_BENCH_FILE, process.env.CSV_BENCH_PER_ROW === '1'))
  process.exit(0)
}

const dir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-csv-'))
const file = path.join(dir, 'geofences.csv')
await generate(file)
const bytes = readFileSync(file).length
const builds = []
for (const {label, script} of serverScripts(fileURLToPath(import.meta.url))) {
  const dist = path.join(path.dirname(script), '..', 'dist')
  const child = fork(fileURLToPath(import.meta.url), {env: {...process.env, CSV_BENCH_DIST: dist, CSV_BENCH_FILE: file, CSV_BENCH_PER_ROW: label === 'now' ? '1' : '0'}})
  const figures = await new Promise((resolve, reject) => {
    child.once('message', resolve)
    child.once('exit', (code) => reject(new Error(`${label}: the child exited with ${code}`)))
  })
  builds.push({label, ...figures})
}
rmSync(dir, {recursive: true, force: true})

const [now, base] = builds
const rows = [
  {name: 'import (all created)', value: now.first.s, unit: 's', target: '≤ 10 s', ok: now.first.s <= 10},
  {name: '  CPU time', value: now.first.cpu, unit: 's', target: '≤ 10 s', ok: now.first.cpu <= 10},
  {name: '  throughput', value: Math.round(ROWS / now.first.s), unit: 'rows/s'},
  {name: '  peak RSS', value: now.peakMb, unit: 'MB', target: '≤ 300 MB', ok: now.peakMb <= 300},
  {name: 're-import, nothing changed', value: now.again.s, unit: 's', target: '≤ 5 s', ok: now.again.s <= 5},
  {name: '  CPU time', value: now.again.cpu, unit: 's', target: '≤ 5 s', ok: now.again.cpu <= 5},
  {name: `baseline: upsert per row (${BASELINE_ROWS.toLocaleString('en-US')})`, value: Math.round(now.perRowRate), unit: 'rows/s'},
  {name: '  import ÷ baseline', value: ROWS / now.first.s / now.perRowRate, unit: '×'},
  {name: 'sync, first (claims every row)', value: now.claim.s, unit: 's'},
  {name: 'sync of unchanged file (ETag)', value: now.byEtag.s, unit: 's', target: '≤ 1 s', ok: now.byEtag.s <= 1},
  {name: 'sync of unchanged file (SHA-256)', value: now.byHash.s, unit: 's', target: '≤ 1 s', ok: now.byHash.s <= 1},
  {name: '  CPU time', value: now.byHash.cpu, unit: 's'},
]
if (base) {
  rows.push(
    {name: `${base.label}: import`, value: base.first.s, unit: 's'},
    {name: '  CPU time', value: base.first.cpu, unit: 's'},
    {name: '  peak RSS', value: base.peakMb, unit: 'MB'},
    {name: `${base.label}: re-import`, value: base.again.s, unit: 's'},
    {name: '  CPU time', value: base.again.cpu, unit: 's'},
    {name: `${base.label}: sync, first`, value: base.claim.s, unit: 's'},
    {name: 'import CPU: now ÷ baseline', value: now.first.cpu / base.first.cpu, unit: '×'},
    {name: 're-import CPU: now ÷ baseline', value: now.again.cpu / base.again.cpu, unit: '×'},
  )
}
report(`bench/csv-import: ${ROWS.toLocaleString('en-US')} rows (${(bytes / 1e6).toFixed(1)} MB), load average ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`, rows)
