// bench/data-api: the geofence data API over HTTP with 100,000 geofences stored. Get by _id and
// list of 100 (latency at low concurrency), upsert by tag/externalId (throughput), against
// GET /health on the same server in the same run.
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {startServer} from '../dist/api/server.js'
import {loadConfig} from '../dist/config/index.js'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {createGeofence} from '../dist/geofences/store.js'
import {createLogger} from '../dist/log.js'
import {createKey} from '../dist/project/keys.js'
import {openStore} from '../dist/store/db.js'
import {load, peakRss, report} from './harness.js'

const COUNT = Number(process.env.BENCH_GEOFENCES ?? 100_000)
const seconds = Number(process.env.BENCH_SECONDS ?? 5)
const LATENCY_CONNECTIONS = 4
const THROUGHPUT_CONNECTIONS = 32

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-data-'))
const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {data: 1e9}}})
const store = await openStore(dataDir)
const {key} = await createKey(store, 'secret', 'test')
const memory = peakRss()

// Seed through the domain function in one transaction: circles of 50-500 m around Monaco.
const random = (min, max) => min + Math.random() * (max - min)
const bodyFor = (i) => ({
  description: `Store ${i}`, type: 'circle', radius: Math.round(random(50, 500)),
  coordinates: [random(7.40, 7.44), random(43.72, 43.76)], metadata: {n: i, kind: i % 2 ? 'shop' : 'depot'},
})
const seedStart = performance.now()
const ids = []
const stamps = []
await store.db.transaction().execute(async (trx) => {
  for (let i = 0; i < COUNT; i++) {
    const row = await createGeofence(trx, false, {...geofenceInputSchema.parse(bodyFor(i)), tag: 'bench', externalId: String(i)})
    ids.push(row.id)
    stamps.push(row.updated_at)
  }
})
const seedS = (performance.now() - seedStart) / 1000

const server = await startServer({config, store, log: createLogger('silent')})
const headers = {authorization: key}
const pick = (list) => list[Math.floor(Math.random() * list.length)]
const getReq = {setupRequest: (req) => ({...req, path: `/v1/geofences/${pick(ids)}`})}
// a page of 100 from a random point in the table, as a client paging with updatedBefore would ask
const listReq = {setupRequest: (req) => ({...req, path: `/v1/geofences?limit=100&updatedBefore=${pick(stamps.slice(100))}`})}
const upsertReq = {
  method: 'PUT',
  setupRequest: (req) => {
    const i = Math.floor(Math.random() * COUNT * 1.1) // ~10 % creates, the rest updates
    return {...req, path: `/v1/geofences/bench/${i}`, body: JSON.stringify(bodyFor(i))}
  },
}

// Every run goes through autocannon (a `requests` list), the baseline too, so the ratios compare like with like.
const healthReq = {path: '/health'}
const run = (request, options) => load({url: server.url, headers: {...headers, 'content-type': 'application/json'}, seconds, requests: [request], ...options})
await run(healthReq, {seconds: 1, connections: LATENCY_CONNECTIONS})
await run(getReq, {seconds: 1, connections: LATENCY_CONNECTIONS})
await run(listReq, {seconds: 1, connections: LATENCY_CONNECTIONS})

const health = await run(healthReq, {connections: LATENCY_CONNECTIONS})
const get = await run(getReq, {connections: LATENCY_CONNECTIONS})
const list = await run(listReq, {connections: LATENCY_CONNECTIONS})
const healthBusy = await run(healthReq, {connections: THROUGHPUT_CONNECTIONS})
const upsert = await run(upsertReq, {connections: THROUGHPUT_CONNECTIONS})
const peakMb = memory.stop()
const stored = store.sqlite.prepare('SELECT count(*) AS n FROM geofences').get().n

report(`bench/data-api — ${COUNT.toLocaleString('en-US')} geofences stored (seeded in ${seedS.toFixed(1)} s), ${seconds} s per run, loopback, load generator in the same process`, [
  {name: `GET /health (${LATENCY_CONNECTIONS} conn) req/s`, value: health.rps},
  {name: 'GET /health p50 / p99', value: `${health.p50} / ${health.p99}`, unit: 'ms'},
  {name: `get by _id (${LATENCY_CONNECTIONS} conn) req/s`, value: get.rps},
  {name: 'get by _id p50', value: get.p50, unit: 'ms', target: '≤ 2 ms', ok: get.p50 <= 2},
  {name: 'get by _id p99', value: get.p99, unit: 'ms'},
  {name: 'get / health throughput', value: `${((get.rps / health.rps) * 100).toFixed(1)} %`},
  {name: `list of 100 (${LATENCY_CONNECTIONS} conn) req/s`, value: list.rps},
  {name: 'list of 100 p50', value: list.p50, unit: 'ms', target: '≤ 10 ms', ok: list.p50 <= 10},
  {name: 'list of 100 p99', value: list.p99, unit: 'ms'},
  {name: `GET /health (${THROUGHPUT_CONNECTIONS} conn) req/s`, value: healthBusy.rps},
  {name: `upsert PUT (${THROUGHPUT_CONNECTIONS} conn) req/s`, value: upsert.rps, target: '≥ 1,000/s', ok: upsert.rps >= 1000},
  {name: 'upsert p50 / p99', value: `${upsert.p50} / ${upsert.p99}`, unit: 'ms'},
  {name: 'upsert / health throughput', value: `${((upsert.rps / healthBusy.rps) * 100).toFixed(1)} %`},
  {name: 'geofences stored after the run', value: stored},
  {name: 'peak RSS (server + generator)', value: peakMb, unit: 'MB'},
])

await server.close()
await store.close()
rmSync(dataDir, {recursive: true, force: true})
