import {createHash} from 'node:crypto'
import {existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import {afterAll} from 'vitest'
import {readManifest, regionFile} from '../../src/map/index.js'
import {importOsm} from '../../src/osm/index.js'
import type {System} from '../../src/system.js'

export const MONACO = path.resolve('data/monaco.osm.pbf')
/** Copies of small extracts from the shared data set (see test/fixtures/osm/README.md). */
export const fixture = (name: string) => path.resolve('test/fixtures/osm', name)

export const tempDataDir = () => mkdtempSync(path.join(os.tmpdir(), 'loc-osm-'))

/** A maker of fresh data dirs for one test file, all removed after its tests. */
export function freshDataDirs(): () => string {
  const dirs: string[] = []
  afterAll(() => {
    for (const d of dirs) rmSync(d, {recursive: true, force: true})
  })
  return () => {
    const d = tempDataDir()
    dirs.push(d)
    return d
  }
}

/** The imported region's database, read-only. */
export function openRegion(dataDir: string, region: string): Database.Database {
  const entry = readManifest(dataDir).regions[region]
  if (!entry) throw new Error(`no region ${region}`)
  return new Database(regionFile(dataDir, entry, entry.db), {readonly: true})
}

/** Every file under data/map (region directories included) with its bytes, to prove a failed import changed nothing. */
export function snapshot(dataDir: string): Record<string, string> {
  const dir = path.join(dataDir, 'map')
  const out: Record<string, string> = {}
  if (!existsSync(dir)) return out
  for (const name of (readdirSync(dir, {recursive: true}) as string[]).sort()) {
    const file = path.join(dir, name)
    const s = statSync(file)
    out[name] = s.isDirectory() ? 'dir' : `${s.mtimeMs}:${createHash('sha1').update(readFileSync(file)).digest('hex')}`
  }
  return out
}

export const count = (db: Database.Database, sql: string, ...params: unknown[]) => (db.prepare(sql).pluck().get(...params) as number)

/**
 * Imports into a running server's data dir and waits until the server serves every region of the
 * new manifest: it looks at the manifest at most once a second (map/mapdata.ts), so a look during
 * the import leaves the new region unseen for up to that long.
 */
export async function importServed(server: {dataDir: string; system: System}, file: string, options: Omit<Parameters<typeof importOsm>[1], 'dataDir'> = {}): Promise<void> {
  await importOsm(file, {...options, dataDir: server.dataDir})
  const want = Object.keys(readManifest(server.dataDir).regions).sort().join()
  const deadline = Date.now() + 5000
  while (server.system.map.regions().map((r) => r.name).sort().join() !== want && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
}
