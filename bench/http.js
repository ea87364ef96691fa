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
  process.on('message', async () => {
    const rssMb = Math.round(process.resourceUsage().maxRSS / 1024)
    await loc.close()
    await store.close()
    rmSync(dataDir, {recursive: true, force: true})
    process.send({rssMb})
    process.exit(0)
  })
} else {
  const seconds = Number(process.env.BENCH_SECONDS ?? 8)
  const child = fork(fileURLToPath(import.meta.url), ['--serve'], {execArgv: (process.env.BENCH_NODE_ARGS ?? '').split(' ').filter(Boolean)})
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const {loc, plain, key} = await next()
  const auth = {authorization: key}
  await load({url: `${plain}/v1/config`, seconds: 1})
  await load({url: `${loc}/v1/config`, headers: auth, seconds: 1})
  const base = await load({url: `${plain}/v1/config`, seconds})
  const ours = await load({url: `${loc}/v1/config`, headers: auth, seconds})
  child.send('stop')
  const {rssMb} = await next()
  const ratio = ours.rps / base.rps
  report(`bench/http — GET /v1/config with a key, ${seconds} s each, 32 connections, loopback, load by ${generator}, servers in a child process`, [
    {name: 'plain node:http  req/s', value: base.rps},
    {name: 'plain node:http  p50 / p99', value: `${base.p50} / ${base.p99}`, unit: 'ms'},
    {name: 'loc              req/s', value: ours.rps},
    {name: 'loc              p50 / p99', value: `${ours.p50} / ${ours.p99}`, unit: 'ms'},
    {name: 'loc / plain throughput', value: `${(ratio * 100).toFixed(1)} %`, target: '≥ 50 %', ok: ratio >= 0.5},
    {name: 'server process peak RSS', value: rssMb, unit: 'MB'},
  ])
}
