import {statSync} from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {type Manifest, type RegionEntry, manifestPath, mapDir, readManifest} from './files.js'

export interface MapRegion extends RegionEntry {
  name: string
}

export interface MapData {
  /** Regions currently served (re-reads the manifest if an import committed since the last check). */
  regions(): MapRegion[]
  /** Read-only handle on a region's database, or undefined for an unknown region. */
  db(region: string): Database.Database | undefined
  /** Every region with its open handle, e.g. to run one query across all regions. */
  all(): {region: MapRegion; db: Database.Database}[]
  /** Increments whenever a new manifest is picked up (use as a cache key). */
  readonly generation: number
  close(): void
}

/**
 * The server's view of the map store. It checks manifest.json's identity (inode, mtime, size) at
 * most every `checkMs` and, when an import has committed, switches to the new files. The old handles
 * are closed on the switch: better-sqlite3 is synchronous, so no query is running at that moment,
 * and the replaced file (already unlinked by the import) disappears with its last handle.
 */
export function openMapData(dataDir: string, opts: {checkMs?: number} = {}): MapData {
  const checkMs = opts.checkMs ?? 1000
  const file = manifestPath(dataDir)
  let stamp = ''
  let checkedAt = -Infinity
  let manifest: Manifest = {version: 1, regions: {}}
  let generation = 0
  const handles = new Map<string, Database.Database>()

  const refresh = () => {
    const now = performance.now()
    if (now - checkedAt < checkMs) return
    checkedAt = now
    let next = ''
    try {
      const s = statSync(file)
      next = `${s.ino}:${s.mtimeMs}:${s.size}`
    } catch {
      next = 'none'
    }
    if (next === stamp) return
    let fresh: Manifest
    try {
      fresh = readManifest(dataDir)
    } catch {
      return // unreadable manifest: keep serving what we have and try again later
    }
    stamp = next
    manifest = fresh
    generation++
    for (const [name, db] of handles) {
      if (manifest.regions[name]?.file !== path.basename(db.name)) {
        db.close()
        handles.delete(name)
      }
    }
  }

  const open = (name: string, retry = true): Database.Database | undefined => {
    const entry = manifest.regions[name]
    if (!entry) return undefined
    let db = handles.get(name)
    if (!db) {
      try {
        db = new Database(path.join(mapDir(dataDir), entry.file), {readonly: true, fileMustExist: true})
      } catch (error) {
        // An import committed and swept the file since the last check: look again.
        if (!retry) throw error
        checkedAt = -Infinity
        refresh()
        return open(name, false)
      }
      handles.set(name, db)
    }
    return db
  }

  return {
    regions() {
      refresh()
      return Object.entries(manifest.regions).map(([name, r]) => ({name, ...r}))
    },
    db(region) {
      refresh()
      return open(region)
    },
    all() {
      refresh()
      return Object.keys(manifest.regions).map((name) => ({region: {name, ...manifest.regions[name]}, db: open(name)!}))
    },
    get generation() {
      refresh()
      return generation
    },
    close() {
      for (const db of handles.values()) db.close()
      handles.clear()
    },
  }
}
