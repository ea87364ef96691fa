// bench/http: loc's full request pipeline (request id, CORS, rate limit, key auth, JSON) on a trivial
// authenticated endpoint, against a plain node:http server answering the same JSON, in one run.
// The servers run in a child process so the load generator does not share their event loop.
import {fork} from 'node:child_process'
import {mkdtempSync, rmSync} from 'node:fs'
import {createServer} from 'node:http'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {generator, load, report, serverScripts} from './harness.js'

if (process.argv[2] === '--serve') {
  const {loadConfig} = await import('../dist/config/index.js')
  const {createLogger} = await import('../dist/log.js')
  const {createKey} = await import('../dist/project/keys.js')
  const {openSystem, serve} = await import('../dist/system.js')
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-http-'))
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {config: 1e9}}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const {key} = createKey(system.store, 'publishable', 'test')
  const serving = await serve(system, {jobs: false})
  const loc = serving.server
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
    await serving.stop()
    await system.close()
    rmSync(dataDir, {recursive: true, force: true})
    process.send({rssMb})
    process.exit(0)
  })
} else {
  // Rounds alternate the servers so that a noisy machine (shared cores) weighs on all alike; each
  // figure is the median over the rounds. With BENCH_BASELINE=<rev> a build of that revision is
  // measured beside this one (harness.js serverScripts).
  const seconds = Number(process.env.BENCH_SECONDS ?? 4)
  const rounds = Number(process.env.BENCH_ROUNDS ?? 3)
  const children = []
  const targets = {}
  for (const {label, script} of serverScripts(fileURLToPath(import.meta.url))) {
    const child = fork(script, ['--serve'], {execArgv: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)})
    const next = () => new Promise((resolve) => child.once('message', resolve))
    const {loc, plain, key} = await next()
    children.push({label, child, next})
    if (!targets.plain) targets.plain = {url: `${plain}/v1/config`, child: children[0]}
    targets[`loc ${label}`] = {url: `${loc}/v1/config`, headers: {authorization: key}, child: children.at(-1)}
  }
  const names = Object.keys(targets)
  for (const t of Object.values(targets)) await load({...t, seconds: 1})
  const runs = Object.fromEntries(names.map((name) => [name, []]))
  for (let round = 0; round < rounds; round++) {
    for (const name of names) {
      const {child, next} = targets[name].child
      child.send('cpu')
      await next()
      const result = await load({...targets[name], seconds})
      child.send('cpu')
      const {cpuUs} = await next()
      runs[name].push({...result, cpuPerReq: cpuUs / result.total})
    }
  }
  const rss = {}
  for (const {label, child, next} of children) {
    child.send('stop')
    rss[label] = (await next()).rssMb
  }
  const median = (rows, field) => rows.map((r) => r[field]).sort((a, b) => a - b)[Math.floor(rows.length / 2)]
  const figures = Object.fromEntries(names.map((name) => [name, {rps: median(runs[name], 'rps'), p50: median(runs[name], 'p50'), p99: median(runs[name], 'p99'), cpu: median(runs[name], 'cpuPerReq')}]))
  const base = figures.plain
  const rows = []
  for (const name of names) {
    const f = figures[name]
    rows.push(
      {name: `${name}  req/s`, value: f.rps},
      {name: `${name}  p50 / p99`, value: `${f.p50} / ${f.p99}`, unit: 'ms'},
      {name: `${name}  CPU per request`, value: f.cpu.toFixed(1), unit: 'µs'},
    )
    if (name !== 'plain') {
      const ratio = f.rps / base.rps
      rows.push({name: `${name} / plain throughput`, value: `${(ratio * 100).toFixed(1)} %`, target: '≥ 50 %', ok: ratio >= 0.5})
    }
  }
  if (children.length > 1) {
    const [now, before] = names.slice(1).map((n) => figures[n])
    rows.push({name: 'now / baseline throughput', value: `${((now.rps / before.rps) * 100).toFixed(1)} %`, target: '≥ 100 % (noise ±5 %)'})
    rows.push({name: 'now / baseline CPU per request', value: `${((now.cpu / before.cpu) * 100).toFixed(1)} %`})
  }
  rows.push({name: 'rounds, req/s ' + names.join(' | '), value: runs.plain.map((_, i) => names.map((n) => Math.round(runs[n][i].rps)).join('|')).join('  ')})
  for (const [label, mb] of Object.entries(rss)) rows.push({name: `server process peak RSS (${label})`, value: mb, unit: 'MB'})
  report(`bench/http — GET /v1/config with a key, ${rounds} alternating rounds of ${seconds} s, 32 connections, loopback, load by ${generator}, servers in child processes; medians`, rows)
}
