// bench/webhooks: webhook delivery by `loc serve` (a real process) to a real local receiver.
// 1. throughput: a backlog of deliveries written while the server is down goes out when it starts
//    (target ≥ 2,000 deliveries/s), beside plain undici POSTs to the same receiver (the baseline);
// 2. latency: conversions POSTed to the API, event to acknowledged delivery (target p50 ≤ 20 ms);
// 3. chaos: the receiver fails 30 % of requests at random and the server is killed with SIGKILL
//    midway; after a restart every delivery must be acknowledged (counts: sent, acknowledged,
//    duplicated, lost), in order per webhook. Retries run on a schedule shortened to milliseconds.
import {spawn} from 'node:child_process'
import {createServer} from 'node:http'
import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {Agent, request} from 'undici'
import {loadConfig} from '../dist/config/index.js'
import {recordEvents} from '../dist/events/recorder.js'
import {createLogger} from '../dist/log.js'
import {createKey} from '../dist/project/keys.js'
import {write} from '../dist/store/write.js'
import {openSystem} from '../dist/system.js'
import {addWebhook} from '../dist/webhooks/registry.js'
import {peakRss, percentile, report} from './harness.js'

const WEBHOOKS = Number(process.env.BENCH_WEBHOOKS ?? 16)
const BACKLOG_EVENTS = Number(process.env.BENCH_EVENTS ?? 1500)
const LATENCY_EVENTS = Number(process.env.BENCH_LATENCY_EVENTS ?? 300)
const CHAOS_EVENTS = Number(process.env.BENCH_CHAOS_EVENTS ?? 1500)
const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-webhooks-'))
const ENV = {
  ...process.env, LOC_DATA_DIR: dataDir, LOC_LOG_LEVEL: 'silent', LOC_RATE_LIMITS__DATA: '1000000',
  LOC_WEBHOOKS__ALLOW_PRIVATE: 'true', LOC_WEBHOOKS__POLL_MS: '100', LOC_WEBHOOKS__LEASE_MS: '3000', LOC_WEBHOOKS__TIMEOUT_MS: '2000',
  LOC_WEBHOOKS__RETRY_DELAYS_MS: '[10,20,40,80,160,320,640,1280,2560,5120]',
}

// ---- the receiver: counts every request, acknowledges with 200 (or fails some on purpose)
let failRate = 0
const acked = new Map() // `${hook}/${eventId}` -> times acknowledged
const firstOrder = new Map() // hook -> event ids in first-acknowledgement order
let requests = 0
let failedOnPurpose = 0
let latencies = []
let lastAckAt = 0
const receiver = createServer((req, res) => {
  const chunks = []
  req.on('data', (c) => chunks.push(c))
  req.on('end', () => {
    requests++
    if (Math.random() < failRate) {
      failedOnPurpose++
      return res.writeHead(500).end()
    }
    const now = Date.now()
    const hook = req.url
    const body = JSON.parse(Buffer.concat(chunks).toString('utf8'))
    for (const event of body.events ?? [body.event]) {
      const key = `${hook}/${event._id}`
      const n = acked.get(key) ?? 0
      acked.set(key, n + 1)
      if (n === 0) {
        let order = firstOrder.get(hook)
        if (!order) firstOrder.set(hook, (order = []))
        order.push(event._id)
        latencies.push(now - Date.parse(event.actualCreatedAt))
      }
    }
    lastAckAt = now
    res.writeHead(200).end()
  })
})
await new Promise((resolve) => receiver.listen(0, '127.0.0.1', resolve))
const receiverUrl = `http://127.0.0.1:${receiver.address().port}`

// ---- the store: keys and webhooks, written before the server starts
const config = loadConfig({env: {}, overrides: {dataDir, logLevel: 'silent'}})
const system = await openSystem(config, {log: createLogger('silent')})
const {key} = createKey(system.store, 'publishable', 'test')
for (let i = 0; i < WEBHOOKS; i++) addWebhook(system.store, false, {url: `${receiverUrl}/hook/${i}`})
const expected = () => acked.size

function serveProcess() {
  const child = spawn('node', [...(process.env.BENCH_SERVER_NODE_ARGS?.split(' ') ?? []), path.resolve('bin/run.js'), 'serve', '--port', '0'], {env: ENV, stdio: ['ignore', 'pipe', 'pipe']})
  let out = ''
  return new Promise((resolve, reject) => {
    child.stdout.on('data', (c) => {
      out += c
      const m = /listening on (http:\/\/\S+)/.exec(out)
      if (m) resolve({child, url: m[1], exited: new Promise((r) => child.once('exit', r))})
    })
    child.stderr.on('data', (c) => (out += c))
    child.once('exit', (code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
}
const until = async (test, timeoutMs = 120_000) => {
  const start = Date.now()
  while (!test()) {
    if (Date.now() - start > timeoutMs) throw new Error('timed out waiting for deliveries')
    await new Promise((r) => setTimeout(r, 5))
  }
}
const agent = new Agent({keepAliveTimeout: 30_000})
async function convert(url, name) {
  const res = await request(`${url}/v1/events`, {method: 'POST', dispatcher: agent, headers: {authorization: key, 'content-type': 'application/json'}, body: JSON.stringify({name, userId: 'bench'})})
  await res.body.dump()
  if (res.statusCode !== 200) throw new Error(`POST /v1/events: ${res.statusCode}`)
}

const memory = peakRss()

// ---- 1. throughput: a backlog goes out when the server starts
// in chunks: one multi-row INSERT of the recorder holds at most 32,766 SQL variables
for (let from = 0; from < BACKLOG_EVENTS; from += 250) {
  const events = Array.from({length: Math.min(250, BACKLOG_EVENTS - from)}, (_, i) => ({type: 'conversion', userId: 'bench', body: {name: `backlog_${from + i}`}}))
  write(system.store, (tx) => recordEvents(tx, false, events, {logged: true}))
}
const backlog = BACKLOG_EVENTS * WEBHOOKS
let server = await serveProcess()
const started = Date.now()
await until(() => acked.size >= backlog)
const throughput = backlog / ((lastAckAt - started) / 1000)

// the baseline: the same number of signed-size POSTs from plain undici, one in flight per webhook as loc does
const baseAgent = new Agent({keepAliveTimeout: 30_000})
const body = JSON.stringify({event: {_id: 'x'.repeat(24), type: 'conversion', name: 'baseline'}, user: null})
const baseStart = Date.now()
await Promise.all(Array.from({length: WEBHOOKS}, async (_, i) => {
  for (let n = 0; n < BACKLOG_EVENTS; n++) {
    const res = await request(`${receiverUrl}/baseline/${i}`, {method: 'POST', body: body.replace('x'.repeat(24), String(n).padStart(24, '0')), dispatcher: baseAgent, headers: {'content-type': 'application/json'}})
    await res.body.dump()
  }
}))
const baseline = backlog / ((Date.now() - baseStart) / 1000)

// ---- 2. latency: one conversion at a time through the API, event to acknowledged delivery
latencies = []
for (let i = 0; i < LATENCY_EVENTS; i++) {
  const before = acked.size
  await convert(server.url, `latency_${i}`)
  await until(() => acked.size >= before + WEBHOOKS, 10_000)
}
const sorted = latencies.sort((a, b) => a - b)
const p50 = percentile(sorted, 50)
const p99 = percentile(sorted, 99)

// ---- 3. chaos: 30 % failures and a kill -9 midway
failRate = 0.3
const chaosStart = acked.size
const requestsBefore = requests
const failedBefore = failedOnPurpose
const chaosTarget = chaosStart + CHAOS_EVENTS * WEBHOOKS
let killed = false
for (let i = 0; i < CHAOS_EVENTS; i++) {
  if (!killed && i === CHAOS_EVENTS / 2) {
    server.child.kill('SIGKILL')
    await server.exited
    killed = true
    server = await serveProcess()
  }
  await convert(server.url, `chaos_${i}`)
}
await until(() => acked.size >= chaosTarget, 180_000)
await new Promise((r) => setTimeout(r, 500))
const duplicates = [...acked.values()].reduce((n, times) => n + times - 1, 0)
const lost = chaosTarget - acked.size
// the receiver saw each webhook's events first in the order they were made
const rows = system.store.sqlite.prepare("SELECT id FROM events WHERE type = 'conversion' ORDER BY rowid").pluck().all()
const inOrder = [...firstOrder.entries()].filter(([hook]) => hook.startsWith('/hook/')).every(([, ids]) => ids.every((id, i) => id === rows[i]))
server.child.kill('SIGTERM')
await server.exited

report(`webhooks: ${WEBHOOKS} webhooks, loc serve as a child process, receiver on 127.0.0.1 (load ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}, ${os.cpus().length} cores)`, [
  {name: 'backlog delivered', value: throughput, unit: '/s', target: '≥ 2,000', ok: throughput >= 2000},
  {name: 'plain undici POSTs (baseline)', value: baseline, unit: '/s'},
  {name: 'loc / baseline', value: `${Math.round((throughput / baseline) * 100)} %`},
  {name: 'event → delivery p50', value: p50, unit: 'ms', target: '≤ 20', ok: p50 <= 20},
  {name: 'event → delivery p99', value: p99, unit: 'ms'},
  {name: 'chaos: deliveries owed', value: CHAOS_EVENTS * WEBHOOKS},
  {name: 'chaos: requests sent', value: requests - requestsBefore},
  {name: 'chaos: failed on purpose (30 %)', value: failedOnPurpose - failedBefore},
  {name: 'chaos: acknowledged (unique)', value: acked.size - chaosStart},
  {name: 'chaos: duplicated (after kill -9)', value: duplicates, unit: '', target: 'receivers de-duplicate by _id'},
  {name: 'chaos: lost', value: lost, target: '0', ok: lost === 0},
  {name: 'every webhook in event order', value: inOrder ? 'yes' : 'no', target: 'yes', ok: inOrder},
  {name: 'peak memory (bench process)', value: memory.stop(), unit: 'MB'},
])
await system.close()
await agent.close()
await baseAgent.close()
receiver.close()
rmSync(dataDir, {recursive: true, force: true})
process.exit(lost === 0 && inOrder ? 0 : 1)
