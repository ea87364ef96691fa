// bench/track: POST /v1/track over HTTP with 1k, 10k and 100k geofences (circles of 50-500 m and
// 5-10-vertex polygons spread over a 50 x 50 km box around Monaco), 10,000 devices whose fixes carry
// 10-100 m accuracy; every request committed before it is answered. Also: the geofence engine alone
// in process (accuracy-disc evaluations/s), peak RSS and start-up time at each size. Beside each
// size, GET /v1/config on the same server in the same run (same key check and limiter, no work).
// All sizes' servers run at once and take turns in rounds (BENCH_ROUNDS of BENCH_SECONDS each), so
// the scaling ratio compares sizes measured seconds apart, not minutes. BENCH_WORKERS=N serves each
// size as `loc serve --workers N` does (N cluster processes on one port and one store).
// BENCH_PROFILE=dir writes each server's cpuprofile of its measured rounds alone.
// BENCH_BASELINE_NODE_ARGS="--flag" starts the baseline's servers with node flags of their own.
import {fork} from 'node:child_process'
import cluster from 'node:cluster'
import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {loadConfig} from '../dist/config/index.js'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {shareInside} from '../dist/geofences/fence.js'
import {geofenceEngine} from '../dist/geofences/index.js'
import {insertGeofence} from '../dist/geofences/store.js'
import {createLogger} from '../dist/log.js'
import {createKey} from '../dist/project/keys.js'
import {write} from '../dist/store/write.js'
import {openSystem, serve} from '../dist/system.js'
import {load, peakRss, percentile, profile, report, serverScripts, stopWhenAsked, threadCpu} from './harness.js'
import {DEVICES, fix, geofence, moveDevice, positions, STEP_M, TELEPORT} from './track-world.js'

const SIZES = (process.env.BENCH_SIZES ?? '1000,10000,100000').split(',').map(Number)
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6)
const ROUND_SECONDS = Number(process.env.BENCH_SECONDS ?? 2)
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 32)

const WORKERS = Number(process.env.BENCH_WORKERS ?? 1)
const serverConfig = (dataDir, port) => loadConfig({env: {}, overrides: {dataDir, port, logLevel: 'silent', rateLimits: {track: 1e9, config: 1e9}}})

if (cluster.isWorker) {
  // BENCH_WORKERS=N: one of the N processes of `loc serve --workers N`, sharing the port and the store
  // port 0: cluster hands every worker the same port
  const system = await openSystem(serverConfig(process.env.BENCH_DATA_DIR, 0), {log: createLogger('silent')})
  geofenceEngine(system.store)
  const serving = await serve(system, {jobs: false})
  process.send(serving.server.url)
  stopWhenAsked({serving, system})
} else if (process.env.BENCH_ROLE === 'server') {
  const count = Number(process.env.BENCH_SIZE)
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-track-'))
  const config = serverConfig(dataDir, 0)
  let system = await openSystem(config, {log: createLogger('silent')})
  const {key} = createKey(system.store, 'publishable', 'test')
  write(system.store, (tx) => {
    for (let i = 0; i < count; i++) insertGeofence(tx, false, {...geofenceInputSchema.parse(geofence(i)), tag: 'bench', externalId: String(i)})
  })
  system.store.sqlite.pragma('wal_checkpoint(TRUNCATE)')
  await system.close()

  // start-up: open the store and build the engine from the stored geofences, as a restart does
  const memory = peakRss()
  const startAt = performance.now()
  system = await openSystem(config, {log: createLogger('silent')})
  const engine = geofenceEngine(system.store)
  const startupMs = performance.now() - startAt

  // the engine alone: the accuracy-disc question (which geofences, with what share) for random fixes
  const fixes = Array.from({length: 50_000}, fix)
  let evaluations = 0
  let candidates = 0
  const engineStart = performance.now()
  while (performance.now() - engineStart < 2000) {
    for (let i = 0; i < 1000; i++) {
      const f = fixes[(evaluations + i) % fixes.length]
      for (const fence of engine.near(false, f.longitude, f.latitude, f.accuracy)) {
        if (shareInside(fence, f.longitude, f.latitude, f.accuracy) > 0) candidates++
      }
    }
    evaluations += 1000
  }
  const engineRate = evaluations / ((performance.now() - engineStart) / 1000)

  const serving = WORKERS > 1 ? await serveWorkers(dataDir) : await serve(system, {jobs: false})
  process.send({url: serving.server.url, key, startupMs, engineRate, hitsPerFix: candidates / evaluations})
  const rowsIn = (table) => system.store.sqlite.prepare(`SELECT count(*) AS n FROM ${table}`).get().n
  let eventsBefore = 0
  let stopProfile = async () => {}
  process.on('message', async (message) => {
    if (message === 'mark') {
      eventsBefore = rowsIn('events')
      stopProfile = await profile(`track-${count}-${process.pid}`)
    }
    if (message === 'settle') {
      // RESTART, not TRUNCATE: a serving store's WAL keeps its size (nothing truncates it), so a
      // round must not pay for growing the file again (the kernel zeroing and allocating its pages
      // was ~5 µs a track at 100k geofences, ~2 at 1k)
      system.store.sqlite.pragma('wal_checkpoint(RESTART)')
      process.send('settled')
    }
  })
  stopWhenAsked({serving, system, dataDir, farewell: async () => {
    const figures = {peakMb: memory.stop(), users: rowsIn('users'), events: rowsIn('events') - eventsBefore}
    await stopProfile()
    return figures
  }})
} else {
  // every size's server runs through the whole measurement, and the sizes take turns in short
  // rounds (order alternating, each server settled after its round): this VM's speed drifts by
  // ±20 % within minutes, and sizes measured minutes apart read ratios from 46 to 69 % on one build
  // with BENCH_BASELINE=<git rev>, that revision's server takes its turns beside this one at each size
  const scripts = serverScripts(fileURLToPath(import.meta.url))
  const servers = []
  for (const size of SIZES) for (const {label, script} of scripts) servers.push(await start(size, script, label))
  for (let round = 0; round < ROUNDS; round++) {
    for (const server of round % 2 ? [...servers].reverse() : servers) server.rounds.push(await trackRound(server))
  }
  const results = []
  for (const server of servers) results.push(await finish(server))
  console.log(`\nload average (1, 5, 15 min): ${os.loadavg().map((n) => n.toFixed(2)).join(', ')} on ${os.cpus().length} cores`)
  const perRound = (a, b) => a.rounds.map((r, i) => b.rounds[i].rps / r.rps).sort((x, y) => x - y)
  const spread = (ratios) => `${(ratios[0] * 100).toFixed(1)} – ${(ratios[ratios.length - 1] * 100).toFixed(1)} %`
  for (const {label} of scripts) {
    const mine = results.filter((r) => r.label === label)
    if (mine.length < 2) continue
    const first = mine[0], last = mine[mine.length - 1]
    const ratio = last.rps / first.rps
    report(`bench/track — scaling${scripts.length > 1 ? ` (${label})` : ''}`, [
      {name: `${last.size.toLocaleString('en-US')} / ${first.size.toLocaleString('en-US')} geofences tracks/s`, value: `${(ratio * 100).toFixed(1)} %`, target: '≥ 70 %', ok: ratio >= 0.7},
      {name: 'the same, per round (min – max)', value: spread(perRound(first, last))},
      // with the cores full (server and generator share them), tracks/s is cores ÷ total CPU a track:
      // so this ratio bounds the one above for any split of the work across threads or processes
      {name: `the same with both cores full (${first.size.toLocaleString('en-US')} ÷ ${last.size.toLocaleString('en-US')} total CPU a track): its bound`, value: `${((first.totalCpu / last.totalCpu) * 100).toFixed(1)} %`},
    ])
  }
  if (scripts.length > 1) {
    report(`bench/track — ${scripts[0].label} / ${scripts[1].label}`, SIZES.map((size) => {
      const [now, then] = scripts.map(({label}) => results.find((r) => r.size === size && r.label === label))
      return {name: `${size.toLocaleString('en-US')} geofences tracks/s`, value: `${((now.rps / then.rps) * 100).toFixed(1)} % (rounds ${spread(perRound(then, now))})`}
    }))
  }
}

async function start(size, script, label) {
  // with BENCH_BASELINE=HEAD, an A/B of node flags (a later flag overrides the same one before it)
  const execArgv = label === 'now' ? process.execArgv : [...process.execArgv, ...(process.env.BENCH_BASELINE_NODE_ARGS ?? '').split(' ').filter(Boolean)]
  const child = fork(script, {execArgv, env: {...process.env, BENCH_ROLE: 'server', BENCH_SIZE: String(size)}})
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const {url, key, startupMs, engineRate, hitsPerFix} = await next()
  const headers = {authorization: key, 'content-type': 'application/json'}
  const server = {size, label, child, next, url, headers, startupMs, engineRate, hitsPerFix, positions: new Float64Array(DEVICES * 2).fill(NaN), rounds: [], latencies: []}
  // every device reports once before the measured rounds, as a fleet already on the road has
  let warmed = 0
  const warmRequest = {method: 'POST', path: '/v1/track', setupRequest: (req) => ({...req, body: JSON.stringify(moveDevice(warmed++ % DEVICES))})}
  await asDevicesOf(server, async () => {
    while (warmed < DEVICES) await load({url, headers, connections: CONNECTIONS, seconds: 1, requests: [warmRequest]})
  })
  // at 100k each device's first fix enters ~9 geofences: ~300 MB of events in a few seconds, which
  // the checkpointer would still be copying back through the measured rounds; steady state is measured
  await settle(server)
  server.config = await load({url, headers, connections: CONNECTIONS, seconds: ROUND_SECONDS, requests: [{method: 'GET', path: '/v1/config'}]})
  child.send('mark')
  return server
}

/** Each server's devices move on from where they last were on that server. */
async function asDevicesOf(server, fn) {
  positions.set(server.positions)
  try {
    return await fn()
  } finally {
    server.positions.set(positions)
  }
}

async function settle(server) {
  server.child.send('settle')
  await server.next()
}

async function trackRound(server) {
  const trackRequest = {
    method: 'POST', path: '/v1/track',
    setupRequest: (req) => ({...req, body: JSON.stringify(moveDevice(Math.floor(Math.random() * DEVICES)))}),
  }
  const serverBefore = threadCpu(server.child.pid)
  const generatorBefore = process.cpuUsage()
  const result = await asDevicesOf(server, () => load({url: server.url, headers: server.headers, connections: CONNECTIONS, seconds: ROUND_SECONDS, requests: [trackRequest], latencies: server.latencies}))
  const generator = process.cpuUsage(generatorBefore)
  const serverAfter = threadCpu(server.child.pid)
  await settle(server)
  return {...result, cpu: {main: serverAfter.main - serverBefore.main, others: serverAfter.others - serverBefore.others, generator: generator.user + generator.system}}
}

async function finish(server) {
  const {size, label, config, rounds, engineRate, hitsPerFix, startupMs} = server
  server.child.send('done')
  const {peakMb, users, events} = await server.next()
  const total = rounds.reduce((sum, r) => sum + r.total, 0)
  const rps = total / (rounds.length * ROUND_SECONDS)
  const latencies = Float64Array.from(server.latencies).sort()
  const ms = (p) => Math.round(percentile(latencies, p))
  const p99s = rounds.map((r) => r.p99).sort((a, b) => a - b)
  const perTrack = (of) => rounds.reduce((sum, r) => sum + of(r), 0) / total
  const cpuPerTrack = (part) => perTrack((r) => r.cpu[part]).toFixed(0)
  const totalCpu = perTrack((r) => r.cpu.main + r.cpu.others + r.cpu.generator)
  const big = size >= 100_000
  const movement = TELEPORT ? 'every fix anywhere in the box' : `each fix ≤ ${STEP_M} m from the last`
  report(`bench/track${label === 'now' ? '' : ` (${label})`} — ${size.toLocaleString('en-US')} geofences, ${DEVICES.toLocaleString('en-US')} devices (${users.toLocaleString('en-US')} seen; ${movement}), ${CONNECTIONS} connections, ${ROUNDS} rounds of ${ROUND_SECONDS} s taking turns with the other sizes, autocannon in the bench process, server in its own${WORKERS > 1 ? ` (${WORKERS} workers)` : ''}`, [
    {name: 'POST /v1/track tracks/s', value: Math.round(rps), target: big ? '≥ 3,000/s' : undefined, ok: big ? rps >= 3000 : undefined},
    {name: 'POST /v1/track p50 / p99', value: `${ms(50)} / ${ms(99)}`, unit: 'ms', target: big ? 'p99 ≤ 25 ms' : undefined, ok: big ? ms(99) <= 25 : undefined},
    {name: 'p99 per round (min – max)', value: `${p99s[0]} – ${p99s[p99s.length - 1]}`, unit: 'ms'},
    {name: `CPU per track: server main thread${WORKERS > 1 ? 's (all workers)' : ''} / its other threads / load generator`, value: `${cpuPerTrack('main')} / ${cpuPerTrack('others')} / ${cpuPerTrack('generator')}`, unit: 'µs'},
    {name: 'CPU per track, all threads of server and generator', value: totalCpu.toFixed(0), unit: 'µs'},
    {name: 'GET /v1/config req/s (baseline)', value: config.rps},
    {name: 'track / config', value: `${((rps / config.rps) * 100).toFixed(1)} %`},
    {name: 'engine alone evaluations/s', value: Math.round(engineRate), target: big ? '≥ 100,000/s' : undefined, ok: big ? engineRate >= 100_000 : undefined},
    {name: 'geofences touched per fix', value: hitsPerFix},
    {name: 'events per track', value: (events / total).toFixed(2)},
    {name: 'answer size (headers included)', value: Math.round(perTrack((r) => r.bytes)), unit: 'B'},
    {name: 'start-up (open store + build engine)', value: Math.round(startupMs), unit: 'ms'},
    {name: WORKERS > 1 ? 'peak RSS of the primary (workers not counted)' : 'server peak RSS', value: peakMb, unit: 'MB'},
  ])
  return {size, label, rps, rounds, totalCpu}
}

/** `loc serve --workers N` as the CLI runs it: N cluster processes listening on one port. */
async function serveWorkers(dataDir) {
  cluster.setupPrimary({exec: fileURLToPath(import.meta.url)})
  const workers = Array.from({length: WORKERS}, () => cluster.fork({BENCH_DATA_DIR: dataDir}))
  const [url] = await Promise.all(workers.map((w) => new Promise((resolve) => w.once('message', resolve))))
  return {
    server: {url},
    stop: () => Promise.all(workers.map((w) => new Promise((resolve) => {
      w.once('exit', resolve)
      w.send('stop')
    }))),
  }
}
