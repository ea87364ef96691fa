import {copyFileSync, existsSync, readdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {openMapData, readManifest} from '../../src/map/index.js'
import {importOsm} from '../../src/osm/index.js'
import {MONACO, count, freshDataDirs, snapshot} from './helpers.js'

const fresh = freshDataDirs()

/** A copy of monaco.osm.pbf with bytes changed by `mutate`. */
function damaged(dir: string, name: string, mutate: (b: Buffer) => Buffer): string {
  const file = path.join(dir, name)
  writeFileSync(file, mutate(readFileSync(MONACO)))
  return file
}

describe('map store: failed imports change nothing', () => {
  it('rejects a truncated file with a clear error and leaves the store as it was', async () => {
    const dataDir = fresh()
    await importOsm(MONACO, {dataDir})
    const before = snapshot(dataDir)
    const file = damaged(dataDir, 'monaco-cut.osm.pbf', (b) => b.subarray(0, Math.floor(b.length * 0.6)))
    await expect(importOsm(file, {dataDir, region: 'monaco'})).rejects.toThrow(/truncated at byte \d+/)
    expect(snapshot(dataDir)).toEqual(before)
  })

  it('rejects corrupt compressed data and a file that is not a PBF at all', async () => {
    const dataDir = fresh()
    await importOsm(MONACO, {dataDir})
    const before = snapshot(dataDir)
    const flipped = damaged(dataDir, 'flipped.osm.pbf', (b) => {
      const c = Buffer.from(b)
      for (let i = 300_000; i < 300_400; i++) c[i] ^= 0x5a
      return c
    })
    await expect(importOsm(flipped, {dataDir, region: 'monaco'})).rejects.toThrow(/corrupt/)
    const text = path.join(dataDir, 'notes.osm.pbf')
    writeFileSync(text, 'this is not a protocol buffer\n'.repeat(100))
    await expect(importOsm(text, {dataDir, region: 'monaco'})).rejects.toThrow(/not an OSM PBF/)
    await expect(importOsm(path.join(dataDir, 'missing.osm.pbf'), {dataDir})).rejects.toThrow(/no such file/)
    expect(snapshot(dataDir)).toEqual(before)
  })

  it('an interrupted import (abort mid-way) leaves no trace', async () => {
    const dataDir = fresh()
    await importOsm(MONACO, {dataDir})
    const before = snapshot(dataDir)
    const abort = new AbortController()
    const run = importOsm(MONACO, {dataDir, signal: abort.signal, onProgress: (p) => p.phase === 'relations' && abort.abort()})
    await expect(run).rejects.toThrow(/abort/i)
    expect(snapshot(dataDir)).toEqual(before)
    expect(readdirSync(path.join(dataDir, 'map')).filter((f) => f.startsWith('.'))).toEqual([])
  })
})

describe('map store: regions and atomic replacement', () => {
  it('--add keeps other regions; a plain import replaces the set', async () => {
    const dataDir = fresh()
    const other = path.join(dataDir, 'other.osm.pbf')
    copyFileSync(MONACO, other)
    await importOsm(MONACO, {dataDir})
    await importOsm(other, {dataDir, add: true})
    expect(Object.keys(readManifest(dataDir).regions).sort()).toEqual(['monaco', 'other'])
    const r = await importOsm(MONACO, {dataDir})
    expect(r.replaced).toBe(true)
    expect(r.removed).toEqual(['other'])
    expect(Object.keys(readManifest(dataDir).regions)).toEqual(['monaco'])
    // only the live region directory remains
    expect(readdirSync(path.join(dataDir, 'map')).filter((f) => f !== 'manifest.json')).toEqual([readManifest(dataDir).regions.monaco.dir])
    await expect(importOsm(MONACO, {dataDir, region: '../evil'})).rejects.toThrow(/invalid region name/)
  })

  it('re-import swaps atomically: open readers keep the old data until they pick up the new manifest', async () => {
    const dataDir = fresh()
    const map = openMapData(dataDir, {checkMs: 0})
    expect(map.regions()).toEqual([])
    await importOsm(MONACO, {dataDir})
    expect(map.regions().map((r) => r.name)).toEqual(['monaco'])
    const old = map.db('monaco')!
    const oldDir = readManifest(dataDir).regions.monaco.dir
    const places = count(old, 'SELECT count(*) FROM places')
    const generation = map.generation

    await importOsm(MONACO, {dataDir, region: 'monaco'})
    const newDir = readManifest(dataDir).regions.monaco.dir
    expect(newDir).not.toBe(oldDir)
    expect(existsSync(path.join(dataDir, 'map', oldDir))).toBe(false) // unlinked, yet...
    expect(count(old, 'SELECT count(*) FROM places')).toBe(places) // ...still readable through the open handle

    const next = map.db('monaco')! // a running server notices the commit without restarting
    expect(map.generation).toBe(generation + 1)
    expect(next).not.toBe(old)
    expect(old.open).toBe(false)
    expect(next.name).toBe(path.join(dataDir, 'map', newDir, 'map.db'))
    expect(count(next, 'SELECT count(*) FROM places')).toBe(places)
    expect(() => next.exec('DELETE FROM places')).toThrow(/readonly/)
    expect(map.all().map((a) => a.region.name)).toEqual(['monaco'])
    map.close()
  })

  it('a reader that had not opened a region yet follows a swap that happened between its checks', async () => {
    const dataDir = fresh()
    await importOsm(MONACO, {dataDir})
    const map = openMapData(dataDir, {checkMs: 60_000})
    expect(map.regions().map((r) => r.name)).toEqual(['monaco']) // manifest read, no file opened
    await importOsm(MONACO, {dataDir}) // the file the reader knows about is now deleted
    const db = map.db('monaco')!
    expect(db.name).toBe(path.join(dataDir, 'map', readManifest(dataDir).regions.monaco.dir, 'map.db'))
    map.close()
  })
})
