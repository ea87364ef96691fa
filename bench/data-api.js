// bench/data-api: the geofence data API over HTTP with 100,000 geofences stored. Get by _id and
// list of 100 (latency, one request at a time), upsert by tag/externalId (throughput at 32), each beside
// GET /health on the same server in the same run.
import {fork} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {loadConfig} from '../dist/config/index.js'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {insertGeofence} from '../dist/geofences/store.js'
import {createLogger} from '../dist/log.js'
import {createKey} from '../dist/project/keys.js'
import {write} from '../dist/store/write.js'
import {openSystem, serve} from '../dist/system.js'
import {generator, load, peakRss, report, serverScripts, stopWhenAsked} from './harness.js'

const COUNT = Number(process.env.BENCH_GEOFENCES ?? 100_000)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
// latency is measured one request at a time (more connections on one thread measure the queue)
const LATENCY_CONNECTIONS = 1
const THROUGHPUT_CONNECTIONS = 32

/** Circles of 50-500 m around Monaco. */
const random = (min, max) => min + Math.random() * (max - min)
const bodyFor = (i) => ({
  description: `Store ${i}`, type: 'circle', radius: Math.round(random(50, 500)),
  coordinates: [random(7.40, 7.44), random(43.72, 43.76)], metadata: {n: i, kind: i % 2 ? 'shop' : 'depot'},
})

if (process.env.BENCH_ROLE === 'server') {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-data-'))
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {data: 1e9, config: 1e9}}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const {store} = system
  const {key} = createKey(store, 'secret', 'test')

  // Seed through the domain's insert, in one write.
  const seedStart = performance.now()
  const ids = []
  const stamps = []
  const shapes = Array.from({length: 1000}, (_, i) => geofenceInputSchema.parse(bodyFor(i)))
  write(store, (tx) => {
    for (let i = 0; i < COUNT; i++) {
      const row = insertGeofence(tx, false, {...shapes[i % shapes.length], metadata: {n: i, kind: i % 2 ? 'shop' : 'depot'}, tag: 'bench', externalId: String(i)})
      ids.push(row.id)
      stamps.push(row.updated_at)
    }
  })
  const seedS = (performance.now() - seedStart) / 1000
  // fold the bulk load's write-ahead log into the database now, not during the first measured writes
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)')

  const serving = await serve(system, {jobs: false})
  const server = serving.server
  const mid = Math.floor(COUNT / 2)
  const memory = peakRss()
  process.send({url: server.url, key, seedS, id: ids[mid], stamp: stamps[mid]})
  stopWhenAsked({serving, system, dataDir, farewell: () => ({peakMb: memory.stop(), stored: store.sqlite.prepare('SELECT count(*) AS n FROM geofences').get().n})})
} else {
  // With BENCH_BASELINE=<rev>, the same measurement runs against a build of that revision too.
  for (const {label, script} of serverScripts(fileURLToPath(import.meta.url))) await measure(label, script)
}

// The server (and the seeding) run in a child process so the load generators never share its thread.
async function measure(label, script) {
  const child = fork(script, {env: {...process.env, BENCH_ROLE: 'server'}})
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const {url, key, seedS, id, stamp} = await next()
  const headers = {authorization: key, 'content-type': 'application/json'}
  // GETs with a fixed path go to wrk when it is installed (a separate C process, so the figures are
  // the server's), else autocannon; /health is measured the same way in each pair, like with like.
  const get = (path, connections, extra = {}) => load({url: url + path, headers, seconds, connections, ...extra})
  const getPath = `/v1/geofences/${id}`
  // a page of 100 from the middle of the table, as a client paging with updatedBefore asks for it
  const listPath = `/v1/geofences?limit=100&updatedBefore=${encodeURIComponent(stamp)}`
  const upsertReq = {
    method: 'PUT',
    setupRequest: (req) => {
      const i = Math.floor(Math.random() * COUNT * 1.1) // ~10 % creates, the rest updates
      return {...req, path: `/v1/geofences/bench/${i}`, body: JSON.stringify(bodyFor(i))}
    },
  }

  for (const path of ['/health', '/v1/config', getPath, listPath]) await get(path, LATENCY_CONNECTIONS, {seconds: 1})
  const health = await get('/health', LATENCY_CONNECTIONS)
  // the same key check and rate limit as ours, no work: what is left is the geofence handler's cost
  const config = await get('/v1/config', LATENCY_CONNECTIONS)
  const one = await get(getPath, LATENCY_CONNECTIONS)
  const list = await get(listPath, LATENCY_CONNECTIONS)
  // PUTs always go through autocannon (in this process), so its baseline does too: a `requests` list forces it
  const healthBusy = await get('', THROUGHPUT_CONNECTIONS, {requests: [{path: '/health'}]})
  const upsert = await get('', THROUGHPUT_CONNECTIONS, {requests: [upsertReq]})
  child.send('done')
  const {peakMb, stored} = await next()
  const pct = (a, b) => `${((a / b) * 100).toFixed(1)} %`

  report(`bench/data-api (${label}) — ${COUNT.toLocaleString('en-US')} geofences stored (seeded in ${seedS.toFixed(1)} s), ${seconds} s per run, loopback, server in its own process; GETs by ${generator}, PUTs by autocannon`, [
    {name: `GET /health (${LATENCY_CONNECTIONS} conn) req/s`, value: health.rps},
    {name: 'GET /health p50 / p99', value: `${health.p50} / ${health.p99}`, unit: 'ms'},
    {name: `GET /v1/config (${LATENCY_CONNECTIONS} conn) req/s`, value: config.rps},
    {name: 'GET /v1/config p50 / p99', value: `${config.p50} / ${config.p99}`, unit: 'ms'},
    {name: `get by _id (${LATENCY_CONNECTIONS} conn) req/s`, value: one.rps},
    {name: 'get by _id p50', value: one.p50, unit: 'ms', target: '≤ 2 ms', ok: one.p50 <= 2},
    {name: 'get by _id p99', value: one.p99, unit: 'ms'},
    {name: 'get / health, get / config', value: `${pct(one.rps, health.rps)}, ${pct(one.rps, config.rps)}`},
    {name: `list of 100 (${LATENCY_CONNECTIONS} conn) req/s`, value: list.rps},
    {name: 'list of 100 p50', value: list.p50, unit: 'ms', target: '≤ 10 ms', ok: list.p50 <= 10},
    {name: 'list of 100 p99', value: list.p99, unit: 'ms'},
    {name: 'list / health, list / config', value: `${pct(list.rps, health.rps)}, ${pct(list.rps, config.rps)}`},
    {name: `GET /health (${THROUGHPUT_CONNECTIONS} conn, autocannon) req/s`, value: healthBusy.rps},
    {name: `upsert PUT (${THROUGHPUT_CONNECTIONS} conn) req/s`, value: upsert.rps, target: '≥ 1,000/s', ok: upsert.rps >= 1000},
    {name: 'upsert p50 / p99', value: `${upsert.p50} / ${upsert.p99}`, unit: 'ms'},
    {name: 'upsert / health throughput', value: pct(upsert.rps, healthBusy.rps)},
    {name: 'geofences stored after the run', value: stored},
    {name: 'peak RSS of the server process', value: peakMb, unit: 'MB'},
  ])
}
