import {readdirSync} from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {type MapBlob, type Sections, readBlob, writeBlob} from '../map/blob.js'

/**
 * A derived stage of the import, owned by the domain that reads its output (routing preprocessing,
 * a geocoder index, map-drawing data). Stages run after the extraction, in the order of STAGES
 * (src/osm/stages.ts), on the region's build directory; then every blob is re-read and checked and
 * each stage's `verify` runs; only then is the region swapped in. A stage that throws, or a failed
 * verify, aborts the import and leaves the store as it was.
 */
export interface MapStage {
  /** Short name shown in progress and the summary (`a-z 0-9 _ -`). */
  name: string
  /**
   * Bumped when what the stage writes changes: the manifest records `name@version`, and the demo
   * re-imports the bundled region when its recorded stages differ from today's.
   */
  version?: number
  build(ctx: StageContext): Promise<void> | void
  /** Checks what `build` wrote (its blobs were already checksummed); throw to abort the swap. */
  verify?(ctx: StageContext): Promise<void> | void
}

export interface StageContext {
  region: string
  /**
   * The extracted region database. During `build` it is read-write: a stage may add its own tables
   * or indexes (prefixed with its name), but must not change the extraction's tables. During
   * `verify` it is read-only.
   */
  db: Database.Database
  /** Writes `<name>.bin` into the region (a blob of kind `name`, see src/map/blob.ts); returns its size. */
  writeBlob(name: string, sections: Sections, version?: number): number
  /** Reads back a blob this region's build wrote (checked: magic, version, length, checksum). */
  readBlob(name: string, version?: number): MapBlob
  /** The blob's path in the build directory (e.g. for a stage that writes its own files). */
  blobFile(name: string): string
  /** Reports progress within the stage and yields to the event loop; throws if the import was aborted. */
  progress(done: number, total: number): Promise<void>
  warn(message: string): void
}

/** How a manifest records a stage: `name`, or `name@version` past version 1. */
export const stageId = (stage: Pick<MapStage, 'name' | 'version'>) => (stage.version && stage.version > 1 ? `${stage.name}@${stage.version}` : stage.name)

export interface StageResult {
  name: string
  /** `stageId` of the stage */
  id: string
  seconds: number
  /** blobs this stage wrote, with their sizes in bytes */
  blobs: Record<string, number>
}

export interface StageRun {
  region: string
  /** build directory holding `map.db` */
  dir: string
  stages: readonly MapStage[]
  signal?: AbortSignal
  onProgress(phase: 'stages' | 'verify', stage: string, done: number, total: number): void
  warnings: string[]
}

const BLOB_NAME = /^[a-z0-9][a-z0-9_-]{0,15}$/
const tick = () => new Promise((resolve) => setImmediate(resolve))

/** Builds every stage, then verifies; returns each stage's time and blobs. Blobs are fsynced as written. */
export async function runStages(run: StageRun): Promise<{stages: StageResult[]; blobs: Record<string, string>}> {
  const blobs: Record<string, string> = {}
  const results: StageResult[] = []
  const dbFile = path.join(run.dir, 'map.db')
  const context = (db: Database.Database, phase: 'stages' | 'verify', stage: MapStage, result?: StageResult): StageContext => ({
    region: run.region,
    db,
    blobFile: (name) => path.join(run.dir, `${name}.bin`),
    writeBlob(name, sections, version = 1) {
      if (!result) throw new Error(`stage ${stage.name}: blobs are written in build, not in verify`)
      if (!BLOB_NAME.test(name)) throw new Error(`stage ${stage.name}: invalid blob name "${name}"`)
      if (name in blobs) throw new Error(`stage ${stage.name}: blob "${name}" was already written`)
      const bytes = writeBlob(path.join(run.dir, `${name}.bin`), name, version, sections)
      blobs[name] = `${name}.bin`
      result.blobs[name] = bytes
      return bytes
    },
    readBlob: (name, version) => readBlob(path.join(run.dir, `${name}.bin`), {kind: name, version}),
    async progress(done, total) {
      run.signal?.throwIfAborted()
      run.onProgress(phase, stage.name, done, total)
      await tick()
    },
    warn: (message) => run.warnings.push(`${stage.name}: ${message}`),
  })

  const rw = new Database(dbFile, {fileMustExist: true})
  try {
    rw.pragma('synchronous = OFF') // the whole build directory is fsynced before the swap
    for (const stage of run.stages) {
      const started = performance.now()
      const result: StageResult = {name: stage.name, id: stageId(stage), seconds: 0, blobs: {}}
      const ctx = context(rw, 'stages', stage, result)
      await ctx.progress(0, 1)
      try {
        await stage.build(ctx)
      } catch (error) {
        throw wrap(stage, 'failed', error)
      }
      result.seconds = (performance.now() - started) / 1000
      results.push(result)
    }
  } finally {
    rw.close()
  }

  const ro = new Database(dbFile, {readonly: true, fileMustExist: true})
  try {
    // Every blob is read back from disk, so what gets swapped in is what the checksums vouch for.
    const stray = readdirSync(run.dir).filter((f) => f.endsWith('.bin') && !Object.values(blobs).includes(f))
    if (stray.length) throw new Error(`verify: unexpected files in the build: ${stray.join(', ')}`)
    for (const name of Object.keys(blobs)) {
      try {
        readBlob(path.join(run.dir, blobs[name]), {kind: name})
      } catch (error) {
        throw new Error(`verify: ${(error as Error).message}`, {cause: error})
      }
    }
    for (const stage of run.stages) {
      const ctx = context(ro, 'verify', stage)
      await ctx.progress(0, 1)
      try {
        await stage.verify?.(ctx)
      } catch (error) {
        throw wrap(stage, 'verify failed', error)
      }
    }
  } finally {
    ro.close()
  }
  return {stages: results, blobs}
}

function wrap(stage: MapStage, what: string, error: unknown): Error {
  if ((error as Error)?.name === 'AbortError') return error as Error
  return new Error(`stage ${stage.name}: ${what}: ${(error as Error)?.message ?? String(error)}`, {cause: error})
}
