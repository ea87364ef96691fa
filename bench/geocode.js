// Geocoding speed on ../shared/data/osm/bench-multi-region.osm.pbf (12 regions in one): index build
// time and size, then forward, autocomplete, reverse and IP latency in process and over HTTP.
// Baseline in the same run: the same forward queries as a plain SQLite FTS5 match on addresses_fts.
// `npm run bench -- geocode` (BENCH_PBF=file to use another extract)
import {fork} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {loadConfig} from '../dist/config/index.js'
import {autocomplete, forwardGeocode, reverseGeocode} from '../dist/geocoding/search.js'
import {validateAddress} from '../dist/geocoding/validate.js'
import {createLogger} from '../dist/log.js'
import {importOsm} from '../dist/osm/index.js'
import {createKey} from '../dist/project/keys.js'
import {openSystem, serve} from '../dist/system.js'
import {load, peakRss, percentile, report, stopWhenAsked} from './harness.js'

const serverConfig = (dataDir) => loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {geocode: 1e9, ipGeocode: 1e9, config: 1e9}, server: {trustProxy: true, bodyLimitBytes: 1 << 20, shutdownTimeoutMs: 5000}}})

// The HTTP server runs in a child so the load generator (wrk runs synchronously) never stalls it.
if (process.env.BENCH_ROLE === 'server') {
  const system = await openSystem(serverConfig(process.env.BENCH_DATA_DIR), {log: createLogger('silent')})
  const {key} = createKey(system.store, 'publishable', 'test')
  const serving = await serve(system, {jobs: false})
  process.send({url: serving.server.url, key})
  stopWhenAsked({serving, system})
  await new Promise(() => {})
}

const SOURCE = path.resolve(process.env.BENCH_PBF ?? '../shared/data/osm/bench-multi-region.osm.pbf')
const N = 2000
let seed = 7
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)

function timed(fn, inputs) {
  const ms = []
  for (const input of inputs) {
    const t = performance.now()
    fn(input)
    ms.push(performance.now() - t)
  }
  ms.sort((a, b) => a - b)
  return {p50: percentile(ms, 50), p99: percentile(ms, 99), rps: 1000 / (ms.reduce((a, b) => a + b, 0) / ms.length)}
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-geocode-'))
const memory = peakRss()
try {
  const imported = await importOsm(SOURCE, {dataDir})
  const stage = imported.stages.find((s) => s.name === 'geocoding')
  const system = await openSystem(serverConfig(dataDir), {log: createLogger('silent')})
  const {map} = system
  const [region] = map.regions()
  const db = map.db(region.name)
  const rows = db.prepare("SELECT number, street, city, postcode, state_code, country_code, lon, lat FROM geocoding_docs WHERE layer = 'address' AND street IS NOT NULL").all()
  const sample = Array.from({length: N}, () => rows[Math.floor(rand() * rows.length)])
  const lines = sample.map((r) => `${r.number} ${r.street}${r.city ? `, ${r.city}` : ''}`)
  const loadStart = performance.now()
  forwardGeocode(map, {query: lines[0], lang: 'en'}) // loads the engine
  const loadMs = performance.now() - loadStart

  const forward = timed((q) => forwardGeocode(map, {query: q, lang: 'en'}), lines)
  const prefixes = lines.map((l) => l.slice(0, Math.ceil(l.length * (0.3 + rand() * 0.5))))
  const auto = timed((q) => autocomplete(map, {query: q, limit: 10}, [sample[0].lon, sample[0].lat]), prefixes)
  const reverse = timed((r) => reverseGeocode(map, {coordinates: [r.lon + 1e-4, r.lat + 1e-4]}), sample)
  const ips = Array.from({length: N}, () => `${1 + Math.floor(rand() * 223)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`)
  system.ip.lookup('8.8.8.8')
  const ip = timed((a) => system.ip.lookup(a), ips)
  const postal = sample.filter((r) => r.city && r.postcode && r.country_code)
  validateAddress(map, {number: postal[0].number, street: postal[0].street, city: postal[0].city, postalCode: postal[0].postcode, countryCode: postal[0].country_code, stateCode: postal[0].state_code ?? undefined})
  const validate = timed((r) => validateAddress(map, {number: r.number, street: r.street, city: r.city, postalCode: r.postcode, countryCode: r.country_code, stateCode: r.state_code ?? undefined}), postal)
  const fts = db.prepare('SELECT a.id, a.lon, a.lat FROM addresses_fts f JOIN addresses a ON a.id = f.rowid WHERE addresses_fts MATCH ? ORDER BY rank LIMIT 10')
  const baseline = timed((q) => fts.all(q.replace(/[^\p{L}\p{N} ]/gu, ' ').split(/\s+/).filter(Boolean).map((w) => `"${w}"`).join(' ')), lines)

  report(`geocode in process: ${region.name}, ${rows.length.toLocaleString('en-US')} addresses, ${N} queries each`, [
    {name: 'index build (geocoding stage)', value: stage.seconds, unit: 's'},
    {name: 'geocoding.bin', value: stage.blobs.geocoding / 1e6, unit: 'MB'},
    {name: 'engine load', value: loadMs, unit: 'ms'},
    {name: 'forward p50', value: forward.p50, unit: 'ms', target: '≤ 5 ms', ok: forward.p50 <= 5},
    {name: 'forward p99', value: forward.p99, unit: 'ms'},
    {name: 'forward baseline: FTS5 match p50', value: baseline.p50, unit: 'ms'},
    {name: 'forward / FTS5 p50', value: forward.p50 / baseline.p50, unit: '×'},
    {name: 'autocomplete p50', value: auto.p50, unit: 'ms', target: '≤ 2 ms', ok: auto.p50 <= 2},
    {name: 'autocomplete p99', value: auto.p99, unit: 'ms', target: '≤ 15 ms', ok: auto.p99 <= 15},
    {name: 'reverse p50', value: reverse.p50, unit: 'ms', target: '≤ 0.5 ms', ok: reverse.p50 <= 0.5},
    {name: 'reverse p99', value: reverse.p99, unit: 'ms'},
    {name: 'IP p50', value: ip.p50, unit: 'ms', target: '≤ 0.2 ms', ok: ip.p50 <= 0.2},
    {name: 'address validation p50', value: validate.p50, unit: 'ms'},
    {name: 'address validation p99', value: validate.p99, unit: 'ms'},
  ])

  const child = fork(new URL(import.meta.url).pathname, [], {env: {...process.env, BENCH_ROLE: 'server', BENCH_DATA_DIR: dataDir}})
  const {url, key} = await new Promise((resolve) => child.once('message', resolve))
  const headers = {authorization: key, 'x-forwarded-for': '8.8.8.8'}
  const http = async (p) => load({url: url + p, headers, connections: 4, seconds: 3})
  const enc = encodeURIComponent
  const hf = await http(`/v1/geocode/forward?query=${enc(lines[1])}`)
  const ha = await http(`/v1/search/autocomplete?query=${enc(prefixes[1])}&near=${sample[0].lat},${sample[0].lon}`)
  const hr = await http(`/v1/geocode/reverse?coordinates=${sample[2].lat},${sample[2].lon}`)
  const hi = await http('/v1/geocode/ip')
  const hc = await http('/v1/config')
  // 500 different prefixes in turn (one repeated query measures only that query), at 4 connections and at 1 (latency without queueing)
  const paths = prefixes.slice(0, 500).map((q) => `/v1/search/autocomplete?query=${enc(q)}&near=${sample[0].lat},${sample[0].lon}`)
  const hm = await load({url, headers, connections: 4, seconds: 3, paths})
  const hm1 = await load({url, headers, connections: 1, seconds: 3, paths})
  const hi1 = await load({url: `${url}/v1/geocode/ip`, headers, connections: 1, seconds: 3})
  const hc1 = await load({url: `${url}/v1/config`, headers, connections: 1, seconds: 3})
  report('geocode over HTTP (4 connections, one query each; /v1/config as the pipeline baseline)', [
    {name: 'forward p50', value: hf.p50, unit: 'ms', target: '≤ 5 ms', ok: hf.p50 <= 5},
    {name: 'autocomplete p50', value: ha.p50, unit: 'ms', target: '≤ 2 ms', ok: ha.p50 <= 2},
    {name: 'autocomplete p99', value: ha.p99, unit: 'ms', target: '≤ 15 ms', ok: ha.p99 <= 15},
    {name: 'reverse p50', value: hr.p50, unit: 'ms', target: '≤ 0.5 ms', ok: hr.p50 <= 0.5},
    {name: 'IP p50', value: hi.p50, unit: 'ms', target: '≤ 0.2 ms', ok: hi.p50 <= 0.2},
    {name: 'baseline /v1/config p50', value: hc.p50, unit: 'ms'},
    {name: 'autocomplete, 500 prefixes p50', value: hm.p50, unit: 'ms', target: '≤ 2 ms', ok: hm.p50 <= 2},
    {name: 'autocomplete, 500 prefixes p99', value: hm.p99, unit: 'ms', target: '≤ 15 ms', ok: hm.p99 <= 15},
    {name: '1 connection: autocomplete p50', value: hm1.p50, unit: 'ms', target: '≤ 2 ms', ok: hm1.p50 <= 2},
    {name: '1 connection: autocomplete p99', value: hm1.p99, unit: 'ms', target: '≤ 15 ms', ok: hm1.p99 <= 15},
    {name: '1 connection: IP p50', value: hi1.p50, unit: 'ms', target: '≤ 0.2 ms', ok: hi1.p50 <= 0.2},
    {name: '1 connection: /v1/config p50', value: hc1.p50, unit: 'ms'},
    {name: 'forward req/s', value: hf.rps, unit: 'req/s'},
    {name: 'peak memory', value: memory.stop(), unit: 'MB'},
  ])
  console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  child.send('stop')
  await new Promise((resolve) => child.once('exit', resolve))
  await system.close()
} finally {
  rmSync(dataDir, {recursive: true, force: true})
}
