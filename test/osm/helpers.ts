import {createHash} from 'node:crypto'
import {existsSync, mkdtempSync, readdirSync, readFileSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import {readManifest} from '../../src/osm/index.js'

export const MONACO = path.resolve('data/monaco.osm.pbf')
/** The shared extracts live beside the repo; tests that need them skip when it is absent. */
export const SHARED = path.resolve('../shared/data/osm')
export const HAS_SHARED = existsSync(path.join(SHARED, 'liechtenstein.osm.pbf'))
export const shared = (name: string) => path.join(SHARED, name)

export const tempDataDir = () => mkdtempSync(path.join(os.tmpdir(), 'loc-osm-'))

/** The imported region's database, read-only. */
export function openRegion(dataDir: string, region: string): Database.Database {
  const entry = readManifest(dataDir).regions[region]
  if (!entry) throw new Error(`no region ${region}`)
  return new Database(path.join(dataDir, 'map', entry.file), {readonly: true})
}

/** Every file under data/map with its bytes, to prove a failed import changed nothing. */
export function snapshot(dataDir: string): Record<string, string> {
  const dir = path.join(dataDir, 'map')
  const out: Record<string, string> = {}
  if (!existsSync(dir)) return out
  for (const name of readdirSync(dir).sort()) {
    const file = path.join(dir, name)
    out[name] = `${statSync(file).mtimeMs}:${createHash('sha1').update(readFileSync(file)).digest('hex')}`
  }
  return out
}

export const count = (db: Database.Database, sql: string, ...params: unknown[]) => (db.prepare(sql).pluck().get(...params) as number)
