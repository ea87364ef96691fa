// Geocoding speed on ../shared/data/osm/bench-multi-region.osm.pbf (12 regions in one): index build
// time and size, then forward, autocomplete, reverse and IP latency in process and over HTTP.
// Baseline in the same run: the same forward queries as a plain SQLite FTS5 match on addresses_fts.
// `npm run bench -- geocode` (BENCH_PBF=file to use another extract). With BENCH_10X=1 it then
// writes a synthetic 10× copy (ids and coordinates shifted, as bench/import does), imports it (places
// and geocoding stages only, in a child) and measures the same queries on it beside the 1× figures.
// BENCH_ONLY=validation measures only address validation at 1× and on a 10× index built in memory
// from the region's docs ten times over (what the 10× import gives validation: the same text and
// postcodes, other coordinates and ids), in minutes instead of the 10× import's ~40.
// BENCH_DATA=dir reuses (or keeps, when new) an imported data directory.
import {fork} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {loadConfig} from '../dist/config/index.js'
import {autocompleteText, forwardGeocode, reverseGeocode} from '../dist/geocoding/search.js'
import {readDocs} from '../dist/geocoding/docs.js'
import {validateAddress, validateIn} from '../dist/geocoding/validate.js'
import {ValidationIndex} from '../dist/geocoding/validate-index.js'
import {createLogger} from '../dist/log.js'
import {regionFile} from '../dist/map/index.js'
import {importOsm} from '../dist/osm/index.js'
import {createKey} from '../dist/project/keys.js'
import {openSystem, serve} from '../dist/system.js'
import {load, peakRss, percentile, report, stopWhenAsked} from './harness.js'
import {writeReplicated} from './import/synth.js'

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

// The 10× import runs in a child so its peak RSS is its own.
if (process.env.BENCH_ROLE === 'import') {
  const {STAGES} = await import('../dist/osm/stages.js')
  const started = performance.now()
  const r = await importOsm(process.env.BENCH_PBF_FILE, {dataDir: process.env.BENCH_DATA_DIR, stages: STAGES.filter((s) => s.name === 'places' || s.name === 'geocoding')})
  process.send({seconds: (performance.now() - started) / 1000, stages: r.stages, peakMb: process.resourceUsage().maxRSS / 1024})
  process.exit(0)
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

/** Engine load, then forward, autocomplete (as the route answers it), reverse and validation latency on a system's first region. */
function measure(system, {lines, prefixes, sample}) {
  const {map} = system
  const loadStart = performance.now()
  forwardGeocode(map, {query: lines[0], lang: 'en'}) // loads the engine
  const loadMs = performance.now() - loadStart
  const forward = timed((q) => forwardGeocode(map, {query: q, lang: 'en'}), lines)
  const auto = timed((q) => autocompleteText(map, {query: q, limit: 10}, [sample[0].lon, sample[0].lat]), prefixes)
  const reverse = timed((r) => reverseGeocode(map, {coordinates: [r.lon + 1e-4, r.lat + 1e-4]}), sample)
  const validate = timed((input) => validateAddress(map, input), validationInputs(sample))
  return {loadMs, forward, auto, reverse, validate}
}

/** Validation inputs from sampled addresses (the first twice: the first call builds the index). */
function validationInputs(sample) {
  const postal = sample.filter((r) => r.city && r.postcode && r.country_code)
  return [postal[0], ...postal].map((r) => ({number: r.number, street: r.street, city: r.city, postalCode: r.postcode, countryCode: r.country_code, stateCode: r.state_code ?? undefined}))
}

/** Validation on the region's index and on a 10× index of the same docs repeated with shifted coordinates and ids. */
function validationTenfold(db, sample) {
  const docs = readDocs(db)
  const raw = new Map(db.prepare('SELECT id, city, building FROM addresses WHERE city IS NOT NULL OR building IS NOT NULL').raw().all().map(([id, city, building]) => [id, {city, building}]))
  let started = performance.now()
  const one = new ValidationIndex(docs, raw)
  const build1 = performance.now() - started
  const docs10 = [], raw10 = new Map()
  const refShift = 1e8
  for (let k = 0; k < 10; k++) {
    for (const d of docs) docs10.push(k ? {...d, lon: d.lon + 16 * (k % 2), lat: d.lat - 20 * (k >> 1), ref: d.ref === null ? null : d.ref + k * refShift} : d)
    for (const [id, v] of raw) raw10.set(id + k * refShift, v)
  }
  started = performance.now()
  const ten = new ValidationIndex(docs10, raw10)
  const build10 = performance.now() - started
  const inputs = validationInputs(sample)
  // the same answers but coordinates: the copies are one postal record with the first copy's point
  const same = inputs.every((input) => JSON.stringify(validateIn([one], input)) === JSON.stringify(validateIn([ten], input)))
  // alternated rounds, so both indexes see the same load
  const ms1 = [], ms10 = []
  for (let round = 0; round < 3; round++) {
    for (const [idx, ms] of [[one, ms1], [ten, ms10]]) {
      for (const input of inputs) {
        const t = performance.now()
        validateIn([idx], input)
        ms.push(performance.now() - t)
      }
    }
  }
  for (const ms of [ms1, ms10]) ms.sort((a, b) => a - b)
  const p50 = [percentile(ms1, 50), percentile(ms10, 50)]
  report(`address validation, 1× and 10× index (${docs.length.toLocaleString('en-US')} and ${docs10.length.toLocaleString('en-US')} docs; ${inputs.length} sampled addresses, 3 alternated rounds)`, [
    {name: 'index build 1×', value: build1, unit: 'ms'},
    {name: 'index build 10×', value: build10, unit: 'ms'},
    {name: 'validation p50 1×', value: p50[0], unit: 'ms'},
    {name: 'validation p99 1×', value: percentile(ms1, 99), unit: 'ms'},
    {name: 'validation p50 10×', value: p50[1], unit: 'ms'},
    {name: 'validation p99 10×', value: percentile(ms10, 99), unit: 'ms'},
    {name: 'validation p50 10× ÷ 1×', value: p50[1] / p50[0], unit: '×', target: '≤ 2×', ok: p50[1] / p50[0] <= 2},
    {name: 'same answers at 1× and 10×', value: same ? 1 : 0, unit: '', target: '1', ok: same},
  ])
  console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
}

/** The geocoder's index on disk: geocoding.bin and the `geocoding_docs` table's pages. */
function indexBytes(map, region, dataDir) {
  const blob = statSync(regionFile(dataDir, region, region.blobs.geocoding)).size
  const docs = map.db(region.name).prepare("SELECT SUM(pgsize) FROM dbstat WHERE name = 'geocoding_docs'").pluck().get()
  return {blob, docs}
}

const reuse = process.env.BENCH_DATA && existsSync(path.join(process.env.BENCH_DATA, 'map'))
const dataDir = process.env.BENCH_DATA ?? mkdtempSync(path.join(os.tmpdir(), 'loc-bench-geocode-'))
const memory = peakRss()
try {
  const imported = reuse ? {stages: [{name: 'geocoding', seconds: NaN}]} : await importOsm(SOURCE, {dataDir})
  const stage = imported.stages.find((s) => s.name === 'geocoding')
  const system = await openSystem(serverConfig(dataDir), {log: createLogger('silent')})
  const {map} = system
  const [region] = map.regions()
  const db = map.db(region.name)
  const rows = db.prepare("SELECT number, street, city, postcode, state_code, country_code, lon, lat FROM geocoding_docs WHERE layer = 'address' AND street IS NOT NULL").all()
  const sample = Array.from({length: N}, () => rows[Math.floor(rand() * rows.length)])
  const lines = sample.map((r) => `${r.number} ${r.street}${r.city ? `, ${r.city}` : ''}`)
  const prefixes = lines.map((l) => l.slice(0, Math.ceil(l.length * (0.3 + rand() * 0.5))))
  const queries = {lines, prefixes, sample}
  if (process.env.BENCH_ONLY === 'validation') {
    validationTenfold(db, sample)
    await system.close()
    if (!process.env.BENCH_DATA) rmSync(dataDir, {recursive: true, force: true})
    process.exit(0)
  }
  const one = measure(system, queries)
  const {loadMs, forward, auto, reverse, validate} = one
  const ips = Array.from({length: N}, () => `${1 + Math.floor(rand() * 223)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}.${Math.floor(rand() * 256)}`)
  system.ip.lookup('8.8.8.8')
  const ip = timed((a) => system.ip.lookup(a), ips)
  const fts = db.prepare('SELECT a.id, a.lon, a.lat FROM addresses_fts f JOIN addresses a ON a.id = f.rowid WHERE addresses_fts MATCH ? ORDER BY rank LIMIT 10')
  const baseline = timed((q) => fts.all(q.replace(/[^\p{L}\p{N} ]/gu, ' ').split(/\s+/).filter(Boolean).map((w) => `"${w}"`).join(' ')), lines)
  const size1 = indexBytes(map, region, dataDir)

  report(`geocode in process: ${region.name}, ${rows.length.toLocaleString('en-US')} addresses, ${N} queries each`, [
    {name: 'index build (geocoding stage)', value: stage.seconds, unit: 's'},
    {name: 'geocoding.bin', value: size1.blob / 1e6, unit: 'MB'},
    {name: 'geocoding_docs table', value: size1.docs / 1e6, unit: 'MB'},
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
  if (process.env.BENCH_10X) await tenTimes(queries, one, {stage, size: size1})
} finally {
  if (!process.env.BENCH_DATA) rmSync(dataDir, {recursive: true, force: true})
}

/** The same queries on a synthetic 10× copy: p50s beside the 1× run's, index size and build time. */
async function tenTimes(queries, one, built1) {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-geocode-10x-'))
  try {
    const file = path.join(dir, 'bench-10x.osm.pbf')
    console.log(`\n10×: writing ${file} …`)
    let started = performance.now()
    await writeReplicated(SOURCE, file, 10)
    console.log(`10×: ${(statSync(file).size / 1e6).toFixed(0)} MB in ${((performance.now() - started) / 1000).toFixed(0)} s; importing (places and geocoding stages) …`)
    const data10 = path.join(dir, 'data')
    const importer = fork(new URL(import.meta.url).pathname, [], {env: {...process.env, BENCH_ROLE: 'import', BENCH_DATA_DIR: data10, BENCH_PBF_FILE: file}})
    const imported = await new Promise((resolve, reject) => {
      importer.once('message', resolve)
      importer.once('exit', (code) => code && reject(new Error(`10× import exited with ${code}`)))
    })
    rmSync(file)
    const stage = imported.stages.find((s) => s.name === 'geocoding')
    const heap = process.memoryUsage().rss
    const system = await openSystem(serverConfig(data10), {log: createLogger('silent')})
    try {
      const [region] = system.map.regions()
      const ten = measure(system, queries)
      const size = indexBytes(system.map, region, data10)
      const engineMb = (process.memoryUsage().rss - heap) / 1e6
      const ratio = (name, a, b, unit = 'ms') => [
        {name: `${name} p50`, value: b.p50, unit},
        {name: `${name} p50 10× ÷ 1×`, value: b.p50 / a.p50, unit: '×', target: '≤ 2×', ok: b.p50 / a.p50 <= 2},
      ]
      report(`geocode in process on the synthetic 10× copy (${region.counts.addresses.toLocaleString('en-US')} addresses; the same ${N} queries each)`, [
        {name: 'import (places + geocoding stages)', value: imported.seconds, unit: 's'},
        {name: 'import peak RSS', value: Math.round(imported.peakMb), unit: 'MB'},
        {name: 'index build (geocoding stage)', value: stage.seconds, unit: 's'},
        {name: 'build 10× ÷ 1×', value: stage.seconds / built1.stage.seconds, unit: '×'},
        {name: 'geocoding.bin', value: size.blob / 1e6, unit: 'MB'},
        {name: 'geocoding_docs table', value: size.docs / 1e6, unit: 'MB'},
        {name: 'index on disk 10× ÷ 1×', value: (size.blob + size.docs) / (built1.size.blob + built1.size.docs), unit: '×'},
        {name: 'engine load', value: ten.loadMs, unit: 'ms'},
        {name: 'engine memory (RSS growth)', value: Math.round(engineMb), unit: 'MB'},
        ...ratio('forward', one.forward, ten.forward),
        ...ratio('autocomplete', one.auto, ten.auto),
        {name: 'autocomplete p99', value: ten.auto.p99, unit: 'ms', target: '≤ 15 ms', ok: ten.auto.p99 <= 15},
        ...ratio('reverse', one.reverse, ten.reverse),
        ...ratio('address validation', one.validate, ten.validate),
      ])
      console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
    } finally {
      await system.close()
    }
  } finally {
    rmSync(dir, {recursive: true, force: true})
  }
}
