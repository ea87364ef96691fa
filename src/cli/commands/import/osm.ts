import {Args, Flags} from '@oclif/core'
import {isRefusal, Refusal, refuse} from '../../../errors.js'
import {importOsm, type ImportProgress, PbfError, REGION_NAME, STAGES} from '../../../osm/index.js'
import {BaseCommand} from '../../base.js'
import {requireFile} from '../../file-arg.js'
import {count, startProgress} from '../../progress.js'

// Each phase's share of the bar, as long as it takes on the bundled extracts: the derived stages
// (routing's contraction above all) take two thirds, each stage an equal part of them.
const PHASES: Record<ImportProgress['phase'], [from: number, to: number, label: string]> = {
  read: [0, 0.05, 'pass 1/2: nodes and relations'], ways: [0.05, 0.25, 'pass 2/2: ways'], relations: [0.25, 0.27, 'areas'],
  roads: [0.27, 0.31, 'road graph'], streets: [0.31, 0.33, 'streets'], index: [0.33, 0.35, 'indexes'],
  stages: [0.35, 0.98, 'stage'], verify: [0.98, 1, 'verify'],
}

/** How far the import is (0 to 1), and what it is doing. */
function progressOf(p: ImportProgress): {fraction: number; label: string} {
  const [from, to, name] = PHASES[p.phase]
  const within = p.total ? Math.min(p.done / p.total, 1) : 0
  // stages and verify report per stage: their place in STAGES spreads them over the phase
  const index = p.stage ? Math.max(STAGES.findIndex((s) => s.name === p.stage), 0) : 0
  const fraction = from + (to - from) * (p.stage ? (index + within) / STAGES.length : within)
  if (p.phase === 'read' || p.phase === 'ways') return {fraction, label: name}
  const done = p.done === 0 ? '' : Number.isInteger(p.done) && p.total > 1 ? ` ${count(p.done)}/${count(p.total)}` : ` ${Math.floor(within * 100)}%`
  return {fraction, label: p.stage ? `${name} ${p.stage}${done}` : `building ${name}${done}`}
}

const kb = (bytes: number) => `${(bytes / 1024).toLocaleString('en-US', {maximumFractionDigits: 1})} KB`

export default class ImportOsm extends BaseCommand<typeof ImportOsm> {
  static description = 'Import an OpenStreetMap extract (.osm.pbf) as a map region: addresses, streets, places, admin areas, road graph and map layers.'
  static examples = [
    '<%= config.bin %> import osm data/monaco.osm.pbf',
    '<%= config.bin %> import osm liechtenstein.osm.pbf --add',
    '<%= config.bin %> import osm planet-cut.osm.pbf --add --region alps',
  ]

  static args = {file: Args.string({description: 'OSM PBF extract', required: true})}
  static flags = {
    add: Flags.boolean({description: 'keep the regions already imported (default: this region replaces them)'}),
    region: Flags.string({description: 'region name: a-z, 0-9, - and _, taken in lower case (default: the file name without .osm.pbf, in lower case); importing an existing region replaces it', helpValue: 'NAME'}),
  }

  async run(): Promise<void> {
    const {args} = await this.parse(ImportOsm)
    const size = requireFile(args.file, 'an OSM PBF extract')
    // lower case, as the default name taken from the file is (Monaco-Latest.osm.pbf → monaco-latest)
    const region = this.flags.region?.toLowerCase()
    if (region !== undefined && !REGION_NAME.test(region)) throw refuse.invalid('--region', 'must be letters a-z (any case), digits, - and _, starting with a letter or digit, at most 64 characters')
    const config = this.loadConfig()
    const abort = new AbortController()
    const onSigint = () => abort.abort()
    process.once('SIGINT', onSigint)
    process.once('SIGTERM', onSigint)
    const mb = (bytes: number) => (bytes / 1e6).toLocaleString('en-US', {minimumFractionDigits: 1, maximumFractionDigits: 1})
    const reading = (bytes: number, total: number, objects: number) => ({mb: `${mb(bytes)}/${mb(total)}`, objects})
    const bar = startProgress('{percentage}% | {mb} MB | {objects} objects | {label}', 1, {label: PHASES.read[2], ...reading(0, size, 0)})
    let result
    try {
      result = await importOsm(args.file, {
        dataDir: config.dataDir,
        region,
        add: this.flags.add,
        signal: abort.signal,
        onProgress: (p) => {
          const {fraction, label} = progressOf(p)
          bar.update(fraction, {label, ...reading(p.bytes, p.totalBytes, p.objects)})
        },
      })
    } catch (error) {
      bar.stop()
      if (abort.signal.aborted) this.error('import interrupted; the map store is unchanged', {exit: 130})
      throw importRefusal(error as Error)
    } finally {
      process.off('SIGINT', onSigint)
      process.off('SIGTERM', onSigint)
    }
    bar.finish({label: 'done'})
    const r = result
    const n = (v: number) => count(v).padStart(10)
    this.log(`${r.replaced ? 'replaced' : 'imported'} region "${r.region}" from ${r.source} in ${r.seconds.toFixed(1)} s (${(r.bytes / 1e6 / r.seconds).toFixed(1)} MB/s)`)
    this.log(`  read       ${n(r.read.nodes)} nodes  ${n(r.read.ways)} ways  ${n(r.read.relations)} relations`)
    this.log(`  addresses  ${n(r.built.addresses)}   interpolations ${count(r.built.interpolations)}`)
    this.log(`  streets    ${n(r.built.streets)}`)
    this.log(`  places     ${n(r.built.places)}`)
    this.log(`  admin      ${n(r.built.adminAreas)} areas   postal codes ${count(r.built.postalCodes)}`)
    this.log(`  roads      ${n(r.built.edges)} edges  ${n(r.built.graphNodes)} nodes  ${count(r.built.turnRestrictions)} turn restrictions`)
    this.log(`  map layers ${n(r.built.layerFeatures)} features`)
    for (const st of r.stages) {
      // by name: routing's blobs are written in the order its worker threads finish
      const blobs = Object.entries(st.blobs).sort(([a], [b]) => a.localeCompare(b)).map(([name, bytes]) => `${name}.bin ${kb(bytes)}`).join(', ')
      this.log(`  stage ${st.name.padEnd(10)} ${st.seconds.toFixed(2).padStart(6)} s  ${blobs || 'no blobs'}`)
    }
    if (r.removed.length) this.log(`  removed regions: ${r.removed.join(', ')} (use --add to keep them)`)
    if (r.overlaps.length) this.warn(`region "${r.region}" overlaps ${r.overlaps.join(', ')}: what both hold is answered and drawn once (docs/api/geocoding.md)`)
    if (r.warnings.length) {
      this.logToStderr(`${count(r.warnings.length)} warning(s):\n  ${r.warnings.slice(0, 5).join('\n  ')}${r.warnings.length > 5 ? `\n  … ${count(r.warnings.length - 5)} more` : ''}`)
    }
    this.log('Map data © OpenStreetMap contributors (ODbL 1.0)')
  }
}

/** A file that is not a PBF extract is the caller's to fix (exit 2); another import running is a wait; anything else a fault. */
function importRefusal(error: Error): Refusal {
  const unchanged = 'the map store is unchanged'
  if (isRefusal(error)) return error // the data directory's (src/data-dir.ts)
  if (error instanceof PbfError) return refuse.invalid('file', `must be an OSM PBF extract (${error.message}); ${unchanged}`)
  if (/^another import .* is running/.test(error.message)) return refuse.unavailable(`${error.message}; ${unchanged}`)
  return new Refusal('internal', `import failed: ${error.message}; ${unchanged}`)
}
