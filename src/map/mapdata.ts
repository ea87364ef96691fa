import {statSync} from 'node:fs'
import Database from 'better-sqlite3'
import {type Manifest, type RegionEntry, MANIFEST_VERSION, manifestPath, readManifest, regionFile} from './manifest.js'

export interface MapRegion extends RegionEntry {
  name: string
}

/** What a domain loads from a region once per generation: a routing graph, a geocoder index, ... */
export interface Engine {
  close?(): void
}

/** What an engine's loader gets: one generation of a region. */
export interface RegionFiles {
  region: MapRegion
  db: Database.Database
  /** Absolute path of the region's blob `name` (…/places.bin), or undefined when it has none. */
  blobFile(name: string): string | undefined
}

export interface MapData {
  /** Regions currently served (re-reads the manifest if an import committed since the last check). */
  regions(): MapRegion[]
  /** Read-only handle on a region's database, or undefined for an unknown region. */
  db(region: string): Database.Database | undefined
  /** Every region with its open handle, e.g. to run one query across all regions. */
  all(): {region: MapRegion; db: Database.Database}[]
  /**
   * The engine `name` of a region, loaded by `load` on first use and kept until an import replaces
   * the region (its generation changes) or removes it; the replaced engine's `close()` is called
   * then. Undefined for an unknown region.
   */
  engine<T extends Engine>(region: string, name: string, load: (region: RegionFiles) => T): T | undefined
  /** Increments whenever a new manifest is picked up (use as a cache key). */
  readonly generation: number
  close(): void
}

interface Loaded {
  generation: string
  db: Database.Database
  engines: Map<string, Engine>
}

/**
 * The server's view of the map store. It checks manifest.json's identity (inode, mtime, size) at
 * most every `checkMs` and, when an import has committed, switches to the new files. What belonged
 * to a replaced region (its database handle and engines) is closed on the switch: better-sqlite3 is
 * synchronous, so no query is running at that moment, and the replaced files (already unlinked by
 * the import) disappear with their last handle.
 */
export function openMapData(dataDir: string, opts: {checkMs?: number} = {}): MapData {
  const checkMs = opts.checkMs ?? 1000
  const file = manifestPath(dataDir)
  let stamp = ''
  let checkedAt = -Infinity
  let manifest: Manifest = {version: MANIFEST_VERSION, regions: {}}
  let generation = 0
  const loaded = new Map<string, Loaded>()

  const drop = (name: string) => {
    const l = loaded.get(name)
    if (!l) return
    loaded.delete(name)
    for (const e of l.engines.values()) e.close?.()
    l.db.close()
  }

  const refresh = (force = false) => {
    const now = performance.now()
    if (!force && now - checkedAt < checkMs) return
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
    for (const [name, l] of loaded) if (manifest.regions[name]?.generation !== l.generation) drop(name)
  }

  const open = (name: string, retry = true): Loaded | undefined => {
    const entry = manifest.regions[name]
    if (!entry) return undefined
    let l = loaded.get(name)
    if (!l) {
      let db: Database.Database
      try {
        db = new Database(regionFile(dataDir, entry, entry.db), {readonly: true, fileMustExist: true})
      } catch (error) {
        // An import committed and swept the file since the last check: look again.
        if (!retry) throw error
        refresh(true)
        return open(name, false)
      }
      l = {generation: entry.generation, db, engines: new Map()}
      loaded.set(name, l)
    }
    return l
  }

  const region = (name: string): MapRegion => ({name, ...manifest.regions[name]})

  return {
    regions() {
      refresh()
      return Object.keys(manifest.regions).map(region)
    },
    db(name) {
      refresh()
      return open(name)?.db
    },
    all() {
      refresh()
      return Object.keys(manifest.regions).map((name) => ({region: region(name), db: open(name)!.db}))
    },
    engine<T extends Engine>(name: string, engineName: string, load: (region: RegionFiles) => T): T | undefined {
      refresh()
      const l = open(name)
      if (!l) return undefined
      let e = l.engines.get(engineName) as T | undefined
      if (!e) {
        const entry = manifest.regions[name]
        e = load({region: region(name), db: l.db, blobFile: (b) => (entry.blobs[b] === undefined ? undefined : regionFile(dataDir, entry, entry.blobs[b]))})
        l.engines.set(engineName, e)
      }
      return e
    },
    get generation() {
      refresh()
      return generation
    },
    close() {
      for (const name of [...loaded.keys()]) drop(name)
    },
  }
}
