// bench/abuse: GET /v1/config latency for a well-behaved client while the server is abused on
// loopback: 1,000 idle connections (reopened when the server times them out), 1,000 slow bodies
// (one byte a second) and a key hammering the slowest list query (a metadata-filtered page of 1,000
// over 50,000 geofences, at the default data limit of 10/s, so most of it is 429s). The same client
// is measured first on the calm server in the same run. Needs ~2,100 file descriptors per process
// (`ulimit -n 4096` or more; it says so and exits when the limit is lower). Stops by itself.
import {fork} from 'node:child_process'
import {mkdtempSync, readFileSync} from 'node:fs'
import {Agent, request} from 'node:http'
import {monitorEventLoopDelay} from 'node:perf_hooks'
import {connect} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {percentile, report, stopWhenAsked} from './harness.js'

const COUNT = Number(process.env.BENCH_GEOFENCES ?? 50_000)
const IDLE = Number(process.env.BENCH_IDLE ?? 1000)
const SLOW = Number(process.env.BENCH_SLOW ?? 1000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 8)
const TARGET_P99_MS = 10

function openFiles() {
  try {
    return Number(/^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))[1])
  } catch {
    return Infinity
  }
}

if (process.env.BENCH_ROLE === 'attacker') {
  await attack(process.env.BENCH_URL, process.env.BENCH_KEY)
} else if (process.env.BENCH_ROLE === 'server') {
  const {loadConfig} = await import('../dist/config/index.js')
  const {geofenceInputSchema} = await import('../dist/geofences/input.js')
  const {insertGeofence} = await import('../dist/geofences/store.js')
  const {createLogger} = await import('../dist/log.js')
  const {createKey} = await import('../dist/project/keys.js')
  const {write} = await import('../dist/store/write.js')
  const {openSystem, serve} = await import('../dist/system.js')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-abuse-'))
  // default limits: the hammering key gets what any key gets
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'warn'}})
  const system = await openSystem(config, {log: createLogger('warn')})
  const {store} = system
  const pk = createKey(store, 'publishable', 'test').key
  const sk = createKey(store, 'secret', 'test').key
  const shape = geofenceInputSchema.parse({description: 'Store', type: 'circle', radius: 100, coordinates: [7.42, 43.73]})
  write(store, (tx) => {
    for (let i = 0; i < COUNT; i++) insertGeofence(tx, false, {...shape, description: `Store ${i}`, metadata: {k0: i % 50 ? `v${i}` : 'v', n: i}, tag: 'bench', externalId: String(i)})
  })
  store.sqlite.pragma('wal_checkpoint(TRUNCATE)')
  const serving = await serve(system, {jobs: false})
  process.send({url: serving.server.url, pk, sk})
  // how long the server's event loop was held while abused, and the CPU it spent (the machine's
  // other processes delay the measured client too; these figures are the server's own)
  const loopDelay = monitorEventLoopDelay({resolution: 1})
  let cpu
  process.on('message', (message) => {
    if (message !== 'abuse') return
    loopDelay.reset()
    loopDelay.enable()
    cpu = {usage: process.cpuUsage(), at: performance.now()}
  })
  stopWhenAsked({serving, system, dataDir, farewell: () => {
    loopDelay.disable()
    const used = process.cpuUsage(cpu.usage)
    return {
      rssMb: Math.round(process.resourceUsage().maxRSS / 1024),
      loopP99: loopDelay.percentile(99) / 1e6,
      loopMax: loopDelay.max / 1e6,
      cpuPercent: (100 * (used.user + used.system)) / 1000 / (performance.now() - cpu.at),
    }
  }})
} else {
  if (openFiles() < IDLE + SLOW + 600) {
    console.error(`bench/abuse holds ${IDLE + SLOW} connections: raise the open-file limit first (ulimit -n 4096); it is ${openFiles()}`)
    process.exit(2)
  }
  const deadline = setTimeout(() => {
    console.error('bench/abuse: gave up after 240 s')
    process.exit(1)
  }, 240_000)
  deadline.unref()
  const child = fork(fileURLToPath(import.meta.url), [], {env: {...process.env, BENCH_ROLE: 'server'}})
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const {url, pk, sk} = await next()
  const {hostname, port} = new URL(url)

  // the well-behaved client: one keep-alive connection, one request at a time, 50 a second, 10 devices
  const agent = new Agent({keepAlive: true, maxSockets: 1})
  const get = (pathname, key) => new Promise((resolve) => {
    const start = performance.now()
    const req = request({host: hostname, port, path: pathname, agent, headers: {authorization: key}}, (res) => {
      res.resume()
      res.on('end', () => resolve({ms: performance.now() - start, status: res.statusCode}))
    })
    req.on('error', () => resolve({ms: performance.now() - start, status: 0}))
    req.end()
  })
  async function measure(seconds) {
    const times = []
    let failed = 0
    const end = performance.now() + seconds * 1000
    for (let i = 0; performance.now() < end; i++) {
      const {ms, status} = await get(`/v1/config?deviceId=well-behaved-${i % 10}`, pk)
      if (status === 200) times.push(ms)
      else failed++
      await new Promise((resolve) => setTimeout(resolve, 20))
    }
    times.sort((a, b) => a - b)
    return {n: times.length, failed, p50: percentile(times, 50), p99: percentile(times, 99), max: times.at(-1)}
  }

  const calm = await measure(3)

  // the attackers run in a process of their own, so their timers do not delay the measured client
  const attacker = fork(fileURLToPath(import.meta.url), [], {env: {...process.env, BENCH_ROLE: 'attacker', BENCH_URL: url, BENCH_KEY: sk}})
  const fromAttacker = () => new Promise((resolve) => attacker.once('message', resolve))
  await fromAttacker()
  await new Promise((resolve) => setTimeout(resolve, 1500))
  attacker.send('held')
  const held = (await fromAttacker()).held
  child.send('abuse')
  const abused = await measure(SECONDS)
  attacker.send('stop')
  const counts = await fromAttacker()
  agent.destroy()
  child.send('stop')
  const {rssMb, loopP99, loopMax, cpuPercent} = await next()

  counts.hammerMs.sort((a, b) => a - b)
  const fmt = (n) => (Number.isFinite(n) ? n.toFixed(2) : String(n))
  report(`bench/abuse — GET /v1/config, one well-behaved client (50/s, keep-alive) on loopback; ${COUNT.toLocaleString('en-US')} geofences; load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`, [
    {name: 'calm: p50 / p99 / max', value: `${fmt(calm.p50)} / ${fmt(calm.p99)} / ${fmt(calm.max)}`, unit: 'ms'},
    {name: 'calm: answered / failed', value: `${calm.n} / ${calm.failed}`},
    {name: 'abused: connections held (start/end)', value: `${held} / ${counts.stillHeld}`},
    {name: 'abused: p50 / p99 / max', value: `${fmt(abused.p50)} / ${fmt(abused.p99)} / ${fmt(abused.max)}`, unit: 'ms'},
    {name: 'abused: p99', value: fmt(abused.p99), unit: 'ms', target: `≤ ${TARGET_P99_MS} ms`, ok: abused.p99 <= TARGET_P99_MS},
    {name: 'abused: answered / failed', value: `${abused.n} / ${abused.failed}`, target: '0 failed', ok: abused.failed === 0},
    {name: 'abused / calm p99', value: `${fmt(abused.p99 / calm.p99)} ×`},
    {name: 'hammer: requests / 429s', value: `${counts.hammer} / ${counts.hammer429}`},
    {name: 'hammer: served page p50 / p99', value: `${fmt(percentile(counts.hammerMs, 50))} / ${fmt(percentile(counts.hammerMs, 99))}`, unit: 'ms'},
    {name: 'abusive sockets opened / closed by server', value: `${counts.idleOpened + counts.slowOpened} / ${counts.closedByServer}`},
    {name: 'server: event loop delay p99 / max', value: `${fmt(loopP99)} / ${fmt(loopMax)}`, unit: 'ms'},
    {name: 'server: CPU while abused', value: Math.round(cpuPercent), unit: '%'},
    {name: 'server process peak RSS', value: rssMb, unit: 'MB'},
  ])
  process.exit(0)
}

/** The attackers: idle and slow connections held (reopened when closed) and the hammering key. */
async function attack(url, sk) {
  const {hostname, port} = new URL(url)
  let stopping = false
  const sockets = new Set()
  const counts = {idleOpened: 0, slowOpened: 0, timedOut: 0, hammer: 0, hammer429: 0, hammerMs: []}
  function hold(kind) {
    if (stopping) return
    const socket = connect(Number(port), hostname)
    sockets.add(socket)
    socket.on('error', () => undefined)
    socket.resume()
    let drip
    socket.on('connect', () => {
      counts[`${kind}Opened`]++
      if (kind === 'slow') {
        socket.write(`POST /v1/geofences HTTP/1.1\r\nHost: x\r\nAuthorization: ${sk}\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{`)
        drip = setInterval(() => socket.write(' '), 1000)
      }
    })
    socket.on('close', () => {
      clearInterval(drip)
      sockets.delete(socket)
      counts.timedOut++
      setTimeout(() => hold(kind), 100)
    })
  }
  for (let i = 0; i < IDLE; i++) hold('idle')
  for (let i = 0; i < SLOW; i++) hold('slow')

  // the hammer: 4 connections in a loop on the slowest list query
  const hammerAgent = new Agent({keepAlive: true, maxSockets: 4})
  const hammer = async () => {
    while (!stopping) {
      const start = performance.now()
      const status = await new Promise((resolve) => {
        const req = request({host: hostname, port, path: '/v1/geofences?limit=1000&metadata[k0]=v', agent: hammerAgent, headers: {authorization: sk}}, (res) => {
          res.resume()
          res.on('end', () => resolve(res.statusCode))
        })
        req.on('error', () => resolve(0))
        req.end()
      })
      counts.hammer++
      if (status === 429) counts.hammer429++
      else counts.hammerMs.push(performance.now() - start)
    }
  }
  const hammers = Array.from({length: 4}, hammer)
  process.send('started')
  process.on('message', async (message) => {
    if (message === 'held') return process.send({held: sockets.size})
    const stillHeld = sockets.size
    const closedByServer = counts.timedOut
    stopping = true
    for (const socket of sockets) socket.destroy()
    await Promise.all(hammers)
    hammerAgent.destroy()
    counts.hammerMs.sort((a, b) => a - b)
    process.send({...counts, stillHeld, closedByServer})
    process.exit(0)
  })
}
