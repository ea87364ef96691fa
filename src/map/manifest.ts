import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'

/**
 * The map store's commit point, `data/map/manifest.json`: which region is served from which files.
 *
 * Version 2 (written now): each region is a directory `<region>-<stamp>/` holding `map.db` and the
 * derived stages' blobs. Version 1 (still read): each region was one file `<region>-<stamp>.db`
 * directly in data/map; such an entry reads as a region with `dir: ''`, that file as `db` and no blobs.
 */
export const MANIFEST_VERSION = 2

export interface RegionEntry {
  /** Unique per import of this region; engines built from the region are cached by it. */
  generation: string
  /** The region's directory under data/map ('' for a version-1 single-file region). */
  dir: string
  /** The extracted SQLite database, relative to `dir`. */
  db: string
  /** Derived blobs by name (`places` → `places.bin`), relative to `dir`. */
  blobs: Record<string, string>
  /** The derived stages that built it (absent in manifests written before stages were recorded). */
  stages?: string[]
  source: string
  importedAt: string
  bbox: [number, number, number, number] | null
  counts: Record<string, number>
}

export interface Manifest {
  version: typeof MANIFEST_VERSION
  regions: Record<string, RegionEntry>
}

interface RegionEntryV1 extends Omit<RegionEntry, 'generation' | 'dir' | 'db' | 'blobs'> {
  file: string
}

/** Whether a region may hold lng/lat: inside its bbox grown by `margin` degrees (no bbox: it may). */
export function mayHold(region: Pick<RegionEntry, 'bbox'>, lng: number, lat: number, margin = 0): boolean {
  const b = region.bbox
  return !b || (lng >= b[0] - margin && lng <= b[2] + margin && lat >= b[1] - margin && lat <= b[3] + margin)
}

export const mapDir = (dataDir: string) => path.join(dataDir, 'map')
export const manifestPath = (dataDir: string) => path.join(mapDir(dataDir), 'manifest.json')

/** The manifest, version 1 entries upgraded in memory; an empty one when nothing was imported. */
export function readManifest(dataDir: string): Manifest {
  const file = manifestPath(dataDir)
  if (!existsSync(file)) return {version: MANIFEST_VERSION, regions: {}}
  const parsed = JSON.parse(readFileSync(file, 'utf8')) as {version: number; regions: Record<string, unknown>}
  if (typeof parsed.regions !== 'object' || parsed.regions === null) throw new Error(`${file}: unknown manifest format`)
  if (parsed.version === MANIFEST_VERSION) return parsed as Manifest
  if (parsed.version !== 1) throw new Error(`${file}: unknown manifest version ${parsed.version}`)
  const regions: Record<string, RegionEntry> = {}
  for (const [name, value] of Object.entries(parsed.regions)) {
    const {file: db, ...rest} = value as RegionEntryV1
    regions[name] = {generation: db, dir: '', db, blobs: {}, ...rest}
  }
  return {version: MANIFEST_VERSION, regions}
}

/** Absolute path of a file of a region (`entry.db` or one of `entry.blobs`). */
export const regionFile = (dataDir: string, entry: RegionEntry, file: string) => path.join(mapDir(dataDir), entry.dir, file)
