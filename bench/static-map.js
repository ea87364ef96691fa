// bench/static-map: GET /maps/static through a real server built by the composition root, over
// Monaco (data/monaco.osm.pbf) and the largest region of ../shared/data/osm/bench-multi-region.osm.pbf
// (read by path; BENCH_PBF overrides). Every measured request is an image-cache miss (the centre
// moves a little each time) except the cached repeats. "Warm" rows: the base map's tiles are drawn
// by three unmeasured requests first, as for any service drawing the same area again. "New area"
// rows draw the base map of every image: each sample uses a fresh renderer (in-process, no HTTP).
// The client is node:http with keep-alive (fetch adds about a millisecond of its own per request).
// "First image" rows: a fresh process (BENCH_ROLE=first, forked three times per row) opens the
// system, serves (which loads the renderer and the drawing data) and times its first GET.
// Renderer alternatives: the same base-map geometry drawn and encoded by @napi-rs/canvas (the one
// used) and by pureimage (the design card's), in-process.
import {execSync, fork} from 'node:child_process'
import http from 'node:http'
import {mkdtempSync, readdirSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {PassThrough} from 'node:stream'
import {fileURLToPath} from 'node:url'
import {createCanvas} from '@napi-rs/canvas'
import * as PImage from 'pureimage'
import {loadConfig} from '../dist/config/index.js'
import {createLogger} from '../dist/log.js'
import {drawingData, regionDrawing} from '../dist/maps/drawing.js'
import {encodePng} from '../dist/maps/png.js'
import {viewport} from '../dist/maps/projection.js'
import {importOsm} from '../dist/osm/index.js'
import {createKey} from '../dist/project/keys.js'
import {openSystem, serve} from '../dist/system.js'
import {peakRss, percentile, report} from './harness.js'

const here = path.dirname(fileURLToPath(import.meta.url))
const SOURCE = path.resolve(process.env.BENCH_PBF ?? path.join(here, '../../shared/data/osm/bench-multi-region.osm.pbf'))
const MONACO = path.join(here, '../data/monaco.osm.pbf')
const N = Number(process.env.BENCH_N ?? 40)

// BENCH_DATA_DIR: a data dir where both were imported before (region names monaco and bench), kept
const reuse = process.env.BENCH_DATA_DIR

const markers = Array.from({length: 10}, (_, i) => `${(43.731 + (i % 5) * 0.003).toFixed(4)},${(7.415 + Math.floor(i / 5) * 0.015 + (i % 3) * 0.002).toFixed(4)}`)
const pathPts = Array.from({length: 200}, (_, i) => `${(43.728 + 0.02 * (i / 199) + 0.002 * Math.sin(i / 9)).toFixed(5)},${(7.412 + 0.03 * (i / 199)).toFixed(5)}`)
const overlay = `markers=color:0xe53935|${markers.join('|')}&path=stroke:0x1565c0|width:4|${pathPts.join('|')}`
const monacoQuery = (scale, i) => `width=600&height=400&zoom=15&scale=${scale}&center=43.7384,${(7.4246 + i * 1e-5).toFixed(5)}&${overlay}`
const bigQuery = (cell, i) => `width=2048&height=2048&zoom=12&center=${cell.lat.toFixed(5)},${(cell.lon + i * 1e-4).toFixed(5)}`

if (process.env.BENCH_ROLE === 'first') {
  // a fresh process: start as `loc serve` does, then time the first image over HTTP
  const started = performance.now()
  const config = loadConfig({env: {}, overrides: {dataDir: process.env.BENCH_DIR, port: 0, logLevel: 'silent', rateLimits: {staticMaps: 1e9}}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const {key} = createKey(system.store, 'publishable', 'test')
  const serving = await serve(system, {jobs: false})
  const ready = performance.now() - started
  // node:http, already loaded by the server (fetch would time loading undici too)
  const timedGet = async (query) => {
    const t = performance.now(), c = process.cpuUsage()
    const status = await new Promise((resolve, reject) => {
      http.get(`${serving.server.url}/maps/static?${query}&publishableKey=${key}`, (res) => {
        res.resume()
        res.on('end', () => resolve(res.statusCode))
      }).on('error', reject)
    })
    const cpu = process.cpuUsage(c)
    return {status, ms: performance.now() - t, cpu: (cpu.user + cpu.system) / 1000}
  }
  // BENCH_PIPELINE=1: a refused request first, so the image's time leaves out the HTTP pipeline's first run
  const pipeline = process.env.BENCH_PIPELINE ? await timedGet('width=1') : undefined
  const {status, ms, cpu} = await timedGet(process.env.BENCH_QUERY)
  if (status !== 200) throw new Error(`first image: ${status}`)
  const result = {ms, cpu, ready, pipeline: pipeline?.ms, rss: process.memoryUsage.rss()}
  if (process.send) process.send(result)
  else console.log(JSON.stringify(result))
  await serving.stop()
  await system.close()
  process.exit(0)
}

/** Median over `runs` fresh processes of the first image's time, the start-up time and the RSS after it. */
async function firstImage(dataDir, query, runs = 3) {
  const got = []
  for (let i = 0; i < runs; i++) {
    const child = fork(fileURLToPath(import.meta.url), [], {env: {...process.env, BENCH_ROLE: 'first', BENCH_DIR: dataDir, BENCH_QUERY: query}})
    got.push(await new Promise((resolve, reject) => {
      child.once('message', resolve)
      child.once('exit', (code) => reject(new Error(`first-image process exited with ${code}`)))
    }))
    await new Promise((resolve) => child.once('exit', resolve))
  }
  const median = (k) => got.map((g) => g[k]).sort((a, b) => a - b)[Math.floor(runs / 2)]
  return {ms: median('ms'), cpu: median('cpu'), ready: median('ready'), rss: Math.round(median('rss') / 1048576), all: got.map((g) => g.ms.toFixed(0)).join(', ')}
}
const dataDir = reuse ?? mkdtempSync(path.join(os.tmpdir(), 'loc-bench-maps-'))
const memory = peakRss()
try {
  let big = {seconds: NaN, stages: []}
  if (!reuse) {
    console.log('importing Monaco and the benchmark file (once, not measured) ...')
    await importOsm(MONACO, {dataDir, add: true})
    big = await importOsm(SOURCE, {dataDir, add: true, region: 'bench'})
    // the region on disk: map.db and the stages' blobs
    const dir = path.join(dataDir, 'map', big.dir)
    big.disk = {db: 0, blobs: 0}
    for (const f of readdirSync(dir)) big.disk[f === 'map.db' ? 'db' : 'blobs'] += statSync(path.join(dir, f)).size
  }
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {staticMaps: 1e9}}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const {key} = createKey(system.store, 'publishable', 'test')

  // the largest region inside the merged file: the half-degree cell with the most road edges
  const db = system.map.db('bench')
  const cell = db.prepare(`SELECT round(lon * 2) / 2 AS cx, round(lat * 2) / 2 AS cy, count(*) AS n, avg(lon) AS lon, avg(lat) AS lat
    FROM graph_nodes GROUP BY cx, cy ORDER BY n DESC LIMIT 1`).get()

  console.log('first images in fresh processes ...')
  const first1 = await firstImage(dataDir, monacoQuery(1, 0))
  const first2 = await firstImage(dataDir, monacoQuery(2, 0))
  const firstBig = await firstImage(dataDir, bigQuery(cell, 0))

  // drawing data load per region (serve loads it before listening; here timed one by one)
  const loads = system.map.regions().map((r) => {
    const t = performance.now()
    regionDrawing(system.map, r.name)
    return {name: r.name, ms: performance.now() - t}
  })
  const serving = await serve(system, {jobs: false})
  const url = serving.server.url


  const agent = new http.Agent({keepAlive: true})
  const get = (target, headers = {}) => new Promise((resolve, reject) => {
    http.get(target, {agent, headers}, (res) => {
      const chunks = []
      res.on('data', (c) => chunks.push(c))
      res.on('end', () => resolve({status: res.statusCode, etag: res.headers.etag, body: Buffer.concat(chunks)}))
    }).on('error', reject)
  })
  async function timed(query, n, headers) {
    const ms = []
    let bytes = 0
    for (let i = -3; i < n; i++) {
      const started = performance.now()
      const res = await get(`${url}/maps/static?${query(i)}&publishableKey=${key}`, headers)
      const body = res.body
      if (res.status !== (headers ? 304 : 200)) throw new Error(`${res.status}: ${body}`)
      if (i >= 0) {
        ms.push(performance.now() - started)
        bytes = body.length
      }
    }
    ms.sort((a, b) => a - b)
    return {p50: percentile(ms, 50), p99: percentile(ms, 99), bytes}
  }

  const s1 = await timed((i) => monacoQuery(1, i), N)
  const s2 = await timed((i) => monacoQuery(2, i), N)
  const large = await timed((i) => bigQuery(cell, i), 5)
  const cached = await timed(() => monacoQuery(1, 0), N * 5)
  const etag = (await get(`${url}/maps/static?${monacoQuery(1, 0)}&publishableKey=${key}`)).etag
  const notModified = await timed(() => monacoQuery(1, 0), N * 5, {'if-none-match': etag})
  // the same repeat in-process: the cache lookup by query, without the HTTP round trip
  const {createStaticMaps, parseStaticMap} = await import('../dist/maps/index.js')
  const repeatQuery = Object.fromEntries(new URLSearchParams(monacoQuery(1, 0)))
  const inProcess = []
  for (let i = 0; i < 200; i++) {
    const t = performance.now()
    if (!system.staticMaps.cached(repeatQuery)) throw new Error('not cached')
    inProcess.push(performance.now() - t)
  }
  inProcess.sort((a, b) => a - b)
  // cold: a fresh renderer per image, so every tile is drawn (the first image of an area)
  const cold = async (query, n) => {
    const ms = [], cpu = []
    for (let i = 0; i < n; i++) {
      const fresh = createStaticMaps(system.map, {stylesDir: 'config/styles', markersDir: dataDir})
      const input = parseStaticMap(Object.fromEntries(new URLSearchParams(query(i))))
      const t = performance.now(), c = process.cpuUsage()
      await fresh.render(input)
      ms.push(performance.now() - t)
      const used = process.cpuUsage(c)
      cpu.push((used.user + used.system) / 1000)
    }
    ms.sort((a, b) => a - b)
    cpu.sort((a, b) => a - b)
    return {p50: percentile(ms, 50), cpu: percentile(cpu, 50)}
  }
  const coldS1 = await cold((i) => monacoQuery(1, i), 7)
  const coldS2 = await cold((i) => monacoQuery(2, i), 5)
  const coldBig = await cold((i) => bigQuery(cell, i), 3)

  // renderer alternatives: the same shapes (600×400 z15 Monaco, geometry only) drawn and encoded by each
  const view = {lon: 7.4246, lat: 43.7384, zoom: 15, width: 600, height: 400}
  const vp = viewport(view)
  const shapes = drawingData(system.map, vp.box).flatMap((d) => d.shapes(vp.box, 15))
  const scene = (g) => {
    g.fillStyle = '#f3f0ea'
    g.fillRect(0, 0, 600, 400)
    for (const s of shapes) {
      g.beginPath()
      let k = 0
      for (const n of s.counts) {
        for (let i = 0; i < n; i++, k += 2) (i ? g.lineTo : g.moveTo).call(g, vp.x(s.coords[k] / 1e7), vp.y(s.coords[k + 1] / 1e7))
      }
      if (s.layer <= 5) {
        g.fillStyle = '#cfe8c3'
        g.fill()
      } else {
        g.strokeStyle = '#d3cbbd'
        g.lineWidth = 4
        g.stroke()
      }
    }
  }
  const alt = async (name, draw) => {
    const ms = []
    for (let i = 0; i < 7; i++) {
      const t = performance.now()
      await draw()
      ms.push(performance.now() - t)
    }
    ms.sort((a, b) => a - b)
    return {name, p50: ms[3]}
  }
  const napi = await alt('@napi-rs/canvas', () => {
    const c = createCanvas(600, 400)
    scene(c.getContext('2d'))
    return encodePng(c.data(), 600, 400)
  })
  const pure = await alt('pureimage', async () => {
    const img = PImage.make(600, 400)
    scene(img.getContext('2d'))
    const sink = new PassThrough()
    sink.resume()
    await PImage.encodePNGToStream(img, sink)
  })

  agent.destroy()
  await serving.stop()
  await system.close()
  const load = execSync('uptime').toString().trim().replace(/.*load average: /, '')
  const mapsStage = big.stages.find((s) => s.name === 'maps')
  const row = (name, ms, limit) => ({name, value: ms, unit: 'ms', target: `≤ ${limit} ms`, ok: ms <= limit})
  // one image size: first image in a fresh process, a new area, warm
  const size = (title, first, cold, warm, limit) => [
    {name: title, value: ''},
    row('  first image, fresh process', first.ms, limit),
    {name: '    its CPU time', value: first.cpu, unit: 'ms'},
    row('  new area (no tile drawn) p50', cold.p50, limit),
    {name: '    its CPU time p50', value: cold.cpu, unit: 'ms'},
    row('  warm p50', warm.p50, limit),
    {name: '  warm p99 / PNG size', value: `${warm.p99.toFixed(1)} / ${Math.round(warm.bytes / 1024)}`, unit: 'ms/KiB'},
  ]
  report(`bench/static-map — GET /maps/static over HTTP, sequential (load average ${load})`, [
    ...size('600×400 z15, 10 markers, 200-pt path', first1, coldS1, s1, 50),
    ...size('same at scale 2', first2, coldS2, s2, 150),
    ...size(`2048×2048 z12, bench file's largest region`, firstBig, coldBig, large, 1000),
    {name: `  at ${cell.lat.toFixed(3)},${cell.lon.toFixed(3)} (${cell.n} road nodes)`, value: ''},
    {name: 'first images per run (600×400, ×2, 2048²)', value: `${first1.all} | ${first2.all} | ${firstBig.all}`, unit: 'ms'},
    {name: 'fresh process: start until serving', value: first1.ready, unit: 'ms'},
    ...loads.map((l) => ({name: `drawing data load, region ${l.name}`, value: l.ms, unit: 'ms', target: '≤ 1000 ms', ok: l.ms <= 1000})),
    row('cached repeat p50 (HTTP round trip)', cached.p50, 1),
    {name: '  304 to If-None-Match p50 (HTTP)', value: notModified.p50, unit: 'ms'},
    row('  in-process lookup by query p50', percentile(inProcess, 50), 1),
    {name: 'renderer @napi-rs/canvas, geometry', value: napi.p50, unit: 'ms'},
    {name: 'renderer pureimage, same geometry', value: pure.p50, unit: 'ms'},
    {name: 'baseline: pureimage / @napi-rs/canvas', value: `${(pure.p50 / napi.p50).toFixed(1)} ×`},
    {name: 'bench file import (incl. maps stage)', value: big.seconds, unit: 's'},
    {name: '  region on disk: map.db / blobs', value: `${Math.round(big.disk?.db / 1048576)} / ${Math.round(big.disk?.blobs / 1048576)}`, unit: 'MiB'},
    {name: '  maps stage / maps.bin', value: `${(mapsStage?.seconds ?? NaN).toFixed(1)} / ${Math.round((mapsStage?.blobs?.maps ?? NaN) / 1048576)}`, unit: 's/MiB'},
    {name: 'peak RSS (server, imports, renders)', value: memory.stop(), unit: 'MB'},
    {name: 'RSS of a fresh process after its first image', value: first1.rss, unit: 'MB'},
  ])
} finally {
  if (!reuse) rmSync(dataDir, {recursive: true, force: true})
}
