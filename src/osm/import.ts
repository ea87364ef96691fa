import {existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync} from 'node:fs'
import path from 'node:path'
import {type Manifest, MANIFEST_VERSION, manifestPath, mapDir, readManifest} from '../map/manifest.js'
import {type BuiltCounts, MapBuilder, type Phase, type SourceCounts} from './build.js'
import {REGION_NAME, fsyncDir, fsyncFile, lock, regionFromFile, sweep, writeFileDurable} from './files.js'
import {readPbf} from './pbf.js'
import {type MapStage, type StageResult, runStages} from './stage.js'
import {STAGES} from './stages.js'

export interface ImportProgress {
  /** extraction phases, then the derived stages, then their verification */
  phase: Phase | 'stages' | 'verify'
  /** the stage being built or verified */
  stage?: string
  /** bytes of the PBF read so far in this pass ('read': nodes and relations, 'ways': ways), and its size */
  bytes: number
  totalBytes: number
  /** OSM objects read so far (nodes + ways + relations) */
  objects: number
  /** progress within a post-read phase */
  done: number
  total: number
}

export interface ImportOptions {
  dataDir: string
  /** Region name; defaults to the file name without `.osm.pbf`. */
  region?: string
  /** Keep the other regions (default: this import replaces the whole map set). */
  add?: boolean
  signal?: AbortSignal
  onProgress?: (p: ImportProgress) => void
  /** The derived stages to run (default: STAGES, src/osm/stages.ts). */
  stages?: readonly MapStage[]
}

export interface ImportResult {
  region: string
  source: string
  /** the new region's directory, relative to data/map */
  dir: string
  generation: string
  /** whether a region of that name was replaced */
  replaced: boolean
  /** regions dropped because `add` was not set */
  removed: string[]
  /** other regions kept whose bounds meet this region's (they may hold the same things) */
  overlaps: string[]
  seconds: number
  bytes: number
  bbox: [number, number, number, number] | null
  read: SourceCounts
  built: BuiltCounts
  /** each derived stage with its time and blob sizes */
  stages: StageResult[]
  warnings: string[]
}

/**
 * Imports one OSM PBF extract as a region of the map store: extract → derived stages → verify →
 * swap. All writes go to a build directory; the single commit point is the rename of manifest.json,
 * so a failed, corrupt or interrupted import, a failing stage or a failed verify leaves the store
 * exactly as it was and readers keep using the old files until the commit.
 */
export async function importOsm(file: string, opts: ImportOptions): Promise<ImportResult> {
  const started = performance.now()
  const region = opts.region ?? regionFromFile(file)
  if (!REGION_NAME.test(region)) throw new Error(`invalid region name "${region}" (use a-z, 0-9, - and _)`)
  if (!existsSync(file) || !statSync(file).isFile()) throw new Error(`${file}: no such file`)
  const totalBytes = statSync(file).size
  const dir = mapDir(opts.dataDir)
  const unlock = lock(opts.dataDir)
  try {
    const before = readManifest(opts.dataDir)
    sweep(opts.dataDir, before)
    const buildDir = path.join(dir, `.build-${process.pid}-${region}`)
    let stamp = Date.now()
    while (existsSync(path.join(dir, `${region}-${stamp.toString(36)}`))) stamp++
    const generation = stamp.toString(36)
    const finalName = `${region}-${generation}`
    mkdirSync(buildDir)
    const builder = new MapBuilder(path.join(buildDir, 'map.db'))
    let objects = 0
    let bytes = 0
    const report = (phase: ImportProgress['phase'], done: number, total: number, stage?: string) =>
      opts.onProgress?.({phase, stage, bytes, totalBytes, objects, done, total})
    let next: Manifest
    let stages: StageResult[]
    try {
      // Two passes (see MapBuilder): nodes and relations first, then ways; each pass counts its own bytes.
      const count = <T extends unknown[]>(f: (...args: T) => void) => (...args: T) => {
        objects++
        f(...args)
      }
      for (const [phase, visitor] of [['read', builder.nodePass], ['ways', builder.wayPass]] as const) {
        if (phase === 'ways') builder.startWays()
        await readPbf(file, {
          node: visitor.node && count(visitor.node),
          way: visitor.way && count(visitor.way),
          relation: visitor.relation && count(visitor.relation),
        }, {
          signal: opts.signal,
          onBlob(done) {
            bytes = done
            report(phase, done, totalBytes)
          },
        })
      }
      await builder.finish(async (phase, done, total) => {
        opts.signal?.throwIfAborted()
        report(phase, done, total)
        await new Promise((resolve) => setImmediate(resolve))
      })
      opts.signal?.throwIfAborted()
      const warnings = builder.warnings
      const derived = await runStages({
        region, dir: buildDir, stages: opts.stages ?? STAGES, signal: opts.signal, warnings,
        onProgress: (phase, stage, done, total) => report(phase, done, total, stage),
      })
      stages = derived.stages
      opts.signal?.throwIfAborted()
      for (const f of readdirSync(buildDir)) fsyncFile(path.join(buildDir, f))
      fsyncDir(buildDir)
      renameSync(buildDir, path.join(dir, finalName))
      fsyncDir(dir)
      next = {version: MANIFEST_VERSION, regions: opts.add ? {...before.regions} : {}}
      next.regions[region] = {
        generation,
        dir: finalName,
        db: 'map.db',
        blobs: derived.blobs,
        stages: stages.map((s) => s.id),
        source: path.basename(file),
        importedAt: new Date().toISOString(),
        bbox: builder.bbox,
        counts: {...builder.built},
      }
      writeFileDurable(manifestPath(opts.dataDir), JSON.stringify(next, null, 2) + '\n')
    } catch (error) {
      builder.close()
      rmSync(buildDir, {recursive: true, force: true})
      rmSync(path.join(dir, finalName), {recursive: true, force: true})
      throw error
    }
    sweep(opts.dataDir, next)
    return {
      region,
      source: file,
      dir: finalName,
      generation,
      replaced: region in before.regions,
      removed: Object.keys(before.regions).filter((r) => !(r in next.regions)),
      overlaps: Object.entries(next.regions).filter(([name, r]) => name !== region && boxesMeet(r.bbox, builder.bbox)).map(([name]) => name),
      seconds: (performance.now() - started) / 1000,
      bytes: totalBytes,
      bbox: builder.bbox,
      read: builder.source,
      built: builder.built,
      stages,
      warnings: builder.warnings,
    }
  } finally {
    unlock()
  }
}

const boxesMeet = (a: number[] | null, b: number[] | null) => !!a && !!b && a[0] <= b[2] && b[0] <= a[2] && a[1] <= b[3] && b[1] <= a[3]
