import {closeSync, fsyncSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, rmSync, writeSync} from 'node:fs'
import path from 'node:path'
import {makeDataDir} from '../data-dir.js'
import {type Manifest, mapDir} from '../map/manifest.js'
import {processAlive} from '../pid.js'

/**
 * Write side of the map store (layout and manifest format: src/map/manifest.ts):
 *
 *   data/map/manifest.json           which region is served from which directory (the commit point)
 *   data/map/<region>-<stamp>/       one directory per region: map.db and the stages' <name>.bin,
 *                                    never modified after commit
 *   data/map/<region>-<stamp>.db     a region imported by a version-1 store (still served)
 *   data/map/.build-<pid>-<region>/  an import in progress (deleted on failure or at the next import)
 *   data/map/.lock                   pid of the running import
 *
 * An import fills a build directory, renames it, then replaces manifest.json by rename. Readers that
 * still hold old files open keep reading them; the old files are deleted after the commit (POSIX
 * keeps their inodes alive for them).
 */

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

export function fsyncDir(dir: string): void {
  try {
    fsyncFile(dir)
  } catch {
    // Not every platform can fsync a directory; the rename is still atomic.
  }
}

/** Takes `data/map/.lock` for this process; clears a lock left by a dead process. */
export function lock(dataDir: string): () => void {
  const dir = mapDir(dataDir)
  makeDataDir(dataDir)
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
      if (pid && pid !== process.pid && processAlive(pid)) throw new Error(`another import (pid ${pid}) is running on ${dir}`)
      rmSync(file, {force: true})
    }
  }
  throw new Error(`cannot lock ${dir}`)
}


/** Deletes build leftovers and region files the manifest no longer names. Call while holding the lock. */
export function sweep(dataDir: string, manifest: Manifest): void {
  const dir = mapDir(dataDir)
  const live = new Set(Object.values(manifest.regions).map((r) => r.dir || r.db))
  for (const entry of readdirSync(dir, {withFileTypes: true})) {
    const name = entry.name
    const region = entry.isDirectory() ? REGION_DIR.test(name) && ours(path.join(dir, name)) : name.endsWith('.db')
    const stale = name.startsWith('.build-') || /^manifest\.json\.tmp-/.test(name) || (region && !live.has(name))
    if (stale) rmSync(path.join(dir, name), {recursive: true, force: true})
  }
}

/** A directory holding nothing but what an import writes (so a user's `my-notes1/` survives the sweep). */
const ours = (dir: string) => readdirSync(dir).every((f) => f.startsWith('map.db') || f.endsWith('.bin'))

export const REGION_NAME = /^[a-z0-9][a-z0-9_-]{0,63}$/
/** `<region>-<stamp>`: the directories an import creates (anything else in data/map is left alone). */
const REGION_DIR = /^[a-z0-9][a-z0-9_-]{0,63}-[a-z0-9]+$/

/** `monaco.osm.pbf` → `monaco`; `Baltimore MD.osm.pbf` → `baltimore-md`. */
export function regionFromFile(file: string): string {
  return path.basename(file).replace(/(\.unsorted)?\.osm\.pbf$|\.pbf$/i, '').toLowerCase().replace(/[^a-z0-9_-]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 64) || 'region'
}
