import {closeSync, existsSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import path from 'node:path'

/**
 * File layout of the map store:
 *
 *   data/map/manifest.json          which region is served from which file (the commit point)
 *   data/map/<region>-<stamp>.db     one SQLite file per region, never modified after commit
 *   data/map/.build-<pid>-*.db       an import in progress (deleted on failure or at the next import)
 *   data/map/.lock                   pid of the running import
 *
 * An import writes a new file, then replaces manifest.json by rename. Readers that still hold the
 * old file open keep reading it; the old file is deleted after the commit (POSIX keeps its inode
 * alive for them).
 */

export interface RegionEntry {
  file: string
  source: string
  importedAt: string
  bbox: [number, number, number, number] | null
  counts: Record<string, number>
}

export interface Manifest {
  version: 1
  regions: Record<string, RegionEntry>
}

export const mapDir = (dataDir: string) => path.join(dataDir, 'map')
export const manifestPath = (dataDir: string) => path.join(mapDir(dataDir), 'manifest.json')

export function readManifest(dataDir: string): Manifest {
  const file = manifestPath(dataDir)
  if (!existsSync(file)) return {version: 1, regions: {}}
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as Manifest
  if (parsed.version !== 1 || typeof parsed.regions !== 'object') throw new Error(`${file}: unknown manifest format`)
  return parsed
}

export function writeFileDurable(file: string, data: string): void {
  const tmp = `${file}.tmp-${process.pid}`
  const fd = openSync(tmp, 'w')
  try {
    writeSync(fd, data)
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  renameSync(tmp, file)
  fsyncDir(path.dirname(file))
}

export function fsyncFile(file: string): void {
  const fd = openSync(file, 'r')
  try {
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
}

function fsyncDir(dir: string): void {
  try {
    fsyncFile(dir)
  } catch {
    // Not every platform can fsync a directory; the rename is still atomic.
  }
}

/** Takes `data/map/.lock` for this process; clears a lock left by a dead process. */
export function lock(dataDir: string): () => void {
  const dir = mapDir(dataDir)
  mkdirSync(dir, {recursive: true})
  const file = path.join(dir, '.lock')
  for (let attempt = 0; attempt < 2; attempt++) {
    try {
      const fd = openSync(file, 'wx')
      writeSync(fd, String(process.pid))
      closeSync(fd)
      return () => rmSync(file, {force: true})
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
      const pid = Number(readFileSync(file, 'utf8'))
      if (pid && pid !== process.pid && alive(pid)) throw new Error(`another import (pid ${pid}) is running on ${dir}`)
      rmSync(file, {force: true})
    }
  }
  throw new Error(`cannot lock ${dir}`)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** Deletes build leftovers and region files the manifest no longer names. Call while holding the lock. */
export function sweep(dataDir: string, manifest: Manifest): void {
  const dir = mapDir(dataDir)
  const live = new Set(Object.values(manifest.regions).map((r) => r.file))
  for (const name of readdirSync(dir)) {
    const stale = name.startsWith('.build-') || (name.endsWith('.db') && !live.has(name)) || /^manifest\.json\.tmp-/.test(name)
    if (stale) rmSync(path.join(dir, name), {force: true})
  }
}

export const REGION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/

/** `monaco.osm.pbf` → `monaco`; `Baltimore MD.osm.pbf` → `baltimore-md`. */
export function regionFromFile(file: string): string {
  return path.basename(file).replace(/(\.unsorted)?\.osm\.pbf$|\.pbf$/i, '').toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) || 'region'
}
