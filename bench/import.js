// bench/import: `loc import osm` throughput and memory on ../shared/data/osm/bench-multi-region.osm.pbf
// (26.9 MB, 12 regions), then on a synthetic 4× copy generated here, to show how time and memory grow.
// Every measurement runs in its own child process so peak RSS (getrusage maxrss) belongs to it alone.
// Baseline in the same run: decode-only throughput of the same PBF reader (inflate + parse, no model).
import {fork} from 'node:child_process'
import {existsSync, mkdtempSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {report} from './harness.js'

const here = path.dirname(fileURLToPath(import.meta.url))
// BENCH_PBF points at another extract; the default is the shared multi-region file beside the repo
const SOURCE = path.resolve(process.env.BENCH_PBF ?? path.join(here, '../../shared/data/osm/bench-multi-region.osm.pbf'))

const [mode, file] = process.argv.slice(2)
if (mode === '--child-decode' || mode === '--child-import' || mode === '--child-synth') {
  const started = performance.now()
  let extra = {}
  if (mode === '--child-decode') {
    const {readPbf} = await import('../dist/osm/pbf.js')
    let objects = 0
    await readPbf(file, {node: () => objects++, way: () => objects++, relation: () => objects++})
    extra = {objects}
  } else if (mode === '--child-import') {
    const {importOsm} = await import('../dist/osm/import.js')
    const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-import-'))
    try {
      const r = await importOsm(file, {dataDir})
      extra = {built: r.built, stages: r.stages, objects: r.read.nodes + r.read.ways + r.read.relations}
    } finally {
      rmSync(dataDir, {recursive: true, force: true})
    }
  } else {
    const {writeReplicated} = await import('./import/synth.js')
    await writeReplicated(SOURCE, file, 4)
  }
  process.send({seconds: (performance.now() - started) / 1000, peakMb: process.resourceUsage().maxRSS / 1024, ...extra})
  process.exit(0)
}

function child(args) {
  return new Promise((resolve, reject) => {
    const p = fork(fileURLToPath(import.meta.url), args, {execArgv: []})
    let result
    p.on('message', (m) => (result = m))
    p.on('exit', (code) => (code === 0 && result ? resolve(result) : reject(new Error(`${args.join(' ')} exited with ${code}`))))
  })
}

if (!existsSync(SOURCE)) {
  console.error(`bench/import needs ${SOURCE} (the shared OSM extracts); skipped.`)
  process.exit(0)
}

const mb = (f) => statSync(f).size / 1e6
// each derived stage's time (included in the import wall time) and blob sizes
const stagesLine = (stages) => stages.map((s) => `${s.name} ${s.seconds.toFixed(2)} s (${Object.entries(s.blobs).map(([b, n]) => `${b}.bin ${(n / 1e6).toFixed(2)} MB`).join(', ') || 'no blobs'})`).join(', ')
const size1 = mb(SOURCE)
console.log(`bench/import on ${os.cpus().length} × ${os.cpus()[0]?.model ?? 'cpu'}, node ${process.version}`)

const decode1 = await child(['--child-decode', SOURCE])
const import1 = await child(['--child-import', SOURCE])
report(`1× ${path.basename(SOURCE)} (${size1.toFixed(1)} MB, ${import1.objects.toLocaleString('en-US')} objects)`, [
  {name: 'decode only (baseline)', value: size1 / decode1.seconds, unit: 'MB/s'},
  {name: 'import wall time', value: import1.seconds, unit: 's', target: '≤ 90 s', ok: import1.seconds <= 90},
  {name: 'import throughput', value: size1 / import1.seconds, unit: 'MB/s'},
  {name: 'import ÷ decode time', value: import1.seconds / decode1.seconds, unit: '×'},
  {name: 'import peak RSS', value: Math.round(import1.peakMb), unit: 'MB', target: '≤ 2048 MB', ok: import1.peakMb <= 2048},
])
console.log(`  built: ${Object.entries(import1.built).map(([k, v]) => `${k} ${v.toLocaleString('en-US')}`).join(', ')}`)
console.log(`  stages: ${stagesLine(import1.stages)}`)

const synthFile = path.join(mkdtempSync(path.join(os.tmpdir(), 'loc-bench-synth-')), 'bench-4x.osm.pbf')
try {
  const synth = await child(['--child-synth', synthFile])
  const size4 = mb(synthFile)
  const decode4 = await child(['--child-decode', synthFile])
  const import4 = await child(['--child-import', synthFile])
  const timeRatio = import4.seconds / import1.seconds
  const rssRatio = import4.peakMb / import1.peakMb
  report(`4× synthetic (${size4.toFixed(1)} MB, ${import4.objects.toLocaleString('en-US')} objects; generated in ${synth.seconds.toFixed(1)} s)`, [
    {name: 'decode only (baseline)', value: size4 / decode4.seconds, unit: 'MB/s'},
    {name: 'import wall time', value: import4.seconds, unit: 's'},
    {name: 'import throughput', value: size4 / import4.seconds, unit: 'MB/s'},
    {name: 'import peak RSS', value: Math.round(import4.peakMb), unit: 'MB'},
    {name: 'time 4× ÷ 1×', value: timeRatio, unit: '×', target: '≤ 4.5×', ok: timeRatio <= 4.5},
    {name: 'peak RSS 4× ÷ 1×', value: rssRatio, unit: '×', target: 'far below 4× (≤ 2.5×)', ok: rssRatio <= 2.5},
  ])
  console.log(`  stages: ${stagesLine(import4.stages)}`)
} finally {
  rmSync(path.dirname(synthFile), {recursive: true, force: true})
}
