import {existsSync, renameSync, rmSync, statSync} from 'node:fs'
import path from 'node:path'
import {type BuiltCounts, MapBuilder, type Phase, type SourceCounts} from './build.js'
import {type Manifest, REGION_NAME, fsyncFile, lock, manifestPath, mapDir, readManifest, regionFromFile, sweep, writeFileDurable} from './files.js'
import {readPbf} from './pbf.js'

export interface ImportProgress {
  phase: Phase
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
}

export interface ImportResult {
  region: string
  source: string
  /** the new region file, relative to data/map */
  file: string
  /** whether a region of that name was replaced */
  replaced: boolean
  /** regions dropped because `add` was not set */
  removed: string[]
  seconds: number
  bytes: number
  bbox: [number, number, number, number] | null
  read: SourceCounts
  built: BuiltCounts
  warnings: string[]
}

/**
 * Imports one OSM PBF extract as a region of the map store. All writes go to a build file; the
 * single commit point is the rename of manifest.json, so a failed, corrupt or interrupted import
 * leaves the store exactly as it was and readers keep using the old files until the commit.
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
    const buildFile = path.join(dir, `.build-${process.pid}-${region}.db`)
    const finalName = `${region}-${Date.now().toString(36)}.db`
    const builder = new MapBuilder(buildFile)
    let objects = 0
    let bytes = 0
    const report = (phase: Phase, done: number, total: number) =>
      opts.onProgress?.({phase, bytes, totalBytes, objects, done, total})
    let next: Manifest
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
      fsyncFile(buildFile)
      renameSync(buildFile, path.join(dir, finalName))
      next = {version: 1, regions: opts.add ? {...before.regions} : {}}
      next.regions[region] = {
        file: finalName,
        source: path.basename(file),
        importedAt: new Date().toISOString(),
        bbox: builder.bbox,
        counts: {...builder.built},
      }
      writeFileDurable(manifestPath(opts.dataDir), JSON.stringify(next, null, 2) + '\n')
    } catch (error) {
      builder.close()
      rmSync(buildFile, {force: true})
      rmSync(path.join(dir, finalName), {force: true})
      throw error
    }
    sweep(opts.dataDir, next)
    return {
      region,
      source: file,
      file: finalName,
      replaced: region in before.regions,
      removed: Object.keys(before.regions).filter((r) => !(r in next.regions)),
      seconds: (performance.now() - started) / 1000,
      bytes: totalBytes,
      bbox: builder.bbox,
      read: builder.source,
      built: builder.built,
      warnings: builder.warnings,
    }
  } finally {
    unlock()
  }
}
