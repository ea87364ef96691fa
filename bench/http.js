// bench/http: loc's full request pipeline (request id, CORS, rate limit, key auth, JSON) on a trivial
// authenticated endpoint, against a plain node:http server answering the same JSON, in one run.
// The servers run in a child process so the load generator does not share their event loop.
import {fork} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {generator, load, report} from './harness.js'

if (process.argv[2] === '--serve') {
  const {startServer} = await import('../dist/api/server.js')
  const {loadConfig} = await import('../dist/config/index.js')
  const {createLogger} = await import('../dist/log.js')
  const {createKey} = await import('../dist/project/keys.js')
  const {openStore} = await import('../dist/store/db.js')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-http-'))
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {config: 1e9}}})
  const store = await openStore(dataDir)
  const {key} = await createKey(store, 'publishable', 'test')
  const loc = await startServer({config, store, log: createLogger('silent')})
  const body = JSON.stringify({meta: {code: 200}})
  const plain = createServer((_req, res) => {
    res.writeHead(200, {'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(body)})
    res.end(body)
  })
  await new Promise((resolve) => plain.listen(0, '127.0.0.1', resolve))
  process.send({loc: loc.url, plain: `http://127.0.0.1:${plain.address().port}`, key})
  let cpu = process.cpuUsage()
  process.on('message', async (message) => {
    if (message === 'cpu') {
      // CPU the servers' process spent since the last ask (µs), to price each request
      const used = process.cpuUsage(cpu)
      cpu = process.cpuUsage()
      process.send({cpuUs: used.user + used.system})
      return
    }
    const rssMb = Math.round(process.resourceUsage().maxRSS / 1024)
    await loc.close()
    await store.close()
    rmSync(dataDir, {recursive: true, force: true})
    process.send({rssMb})
    process.exit(0)
  })
} else {
  // Rounds alternate the two servers so that a noisy machine (shared cores) weighs on both alike;
  // each figure is the median over the rounds.
  const seconds = Number(process.env.BENCH_SECONDS ?? 4)
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {execArgv: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)})
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const {loc, plain, key} = await next()
  const targets = {
    plain: {url: `${plain}/v1/config`},
    loc: {url: `${loc}/v1/config`, headers: {authorization: key}},
  }
  for (const t of Object.values(targets)) await load({...t, seconds: 1})
  const runs = {plain: [], loc: []}
  for (let round = 0; round < rounds; round++) {
    for (const name of ['plain', 'loc']) {
      child.send('cpu')
      await next()
      const result = await load({...targets[name], seconds})
      child.send('cpu')
      const {cpuUs} = await next()
      runs[name].push({...result, cpuPerReq: cpuUs / result.total})
    }
  }
  child.send('stop')
  const {rssMb} = await next()
  const median = (rows, field) => rows.map((r) => r[field]).sort((a, b) => a - b)[Math.floor(rows.length / 2)]
  const base = {rps: median(runs.plain, 'rps'), p50: median(runs.plain, 'p50'), p99: median(runs.plain, 'p99'), cpu: median(runs.plain, 'cpuPerReq')}
  const ours = {rps: median(runs.loc, 'rps'), p50: median(runs.loc, 'p50'), p99: median(runs.loc, 'p99'), cpu: median(runs.loc, 'cpuPerReq')}
  const ratio = ours.rps / base.rps
  report(`bench/http — GET /v1/config with a key, ${rounds} alternating rounds of ${seconds} s, 32 connections, loopback, load by ${generator}, servers in a child process; medians`, [
    {name: 'plain node:http  req/s', value: base.rps},
    {name: 'plain node:http  p50 / p99', value: `${base.p50} / ${base.p99}`, unit: 'ms'},
    {name: 'plain node:http  CPU per request', value: base.cpu.toFixed(1), unit: 'µs'},
    {name: 'loc              req/s', value: ours.rps},
    {name: 'loc              p50 / p99', value: `${ours.p50} / ${ours.p99}`, unit: 'ms'},
    {name: 'loc              CPU per request', value: ours.cpu.toFixed(1), unit: 'µs'},
    {name: 'loc / plain throughput', value: `${(ratio * 100).toFixed(1)} %`, target: '≥ 50 %', ok: ratio >= 0.5},
    {name: 'plain / loc CPU per request', value: `${((base.cpu / ours.cpu) * 100).toFixed(1)} %`},
    {name: 'rounds, req/s plain | loc', value: runs.plain.map((r, i) => `${Math.round(r.rps)}|${Math.round(runs.loc[i].rps)}`).join('  ')},
    {name: 'server process peak RSS', value: rssMb, unit: 'MB'},
  ])
}
