import {mkdirSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {openMapData, readManifest} from '../../src/map/index.js'
import {importOsm, type MapStage, STAGES} from '../../src/osm/index.js'
import {placeIndex} from '../../src/places/index.js'
import {MONACO, count, fixture, freshDataDirs, snapshot} from './helpers.js'

const fresh = freshDataDirs()
/** manifest.json and a region directory with map.db and every blob the import's stages wrote. */
const regionFiles = (r: {dir: string; stages: {blobs: Record<string, number>}[]}) =>
  ['manifest.json', r.dir, `${r.dir}/map.db`, ...r.stages.flatMap((s) => Object.keys(s.blobs).map((b) => `${r.dir}/${b}.bin`))].sort()
const mapFiles = (dataDir: string) => readdirSync(path.join(dataDir, 'map'), {recursive: true}).map(String).sort()

describe('staged import', () => {
  it('extract → stages → verify → swap: the region directory holds map.db and each stage\'s blob', async () => {
    const dataDir = fresh()
    const seen: string[] = []
    const r = await importOsm(MONACO, {dataDir, onProgress: (p) => p.stage && seen.push(`${p.phase}:${p.stage}`)})
    expect(r.stages.map((s) => s.name)).toEqual(STAGES.map((s) => s.name))
    expect(r.stages[0]).toMatchObject({name: 'places', blobs: {places: expect.any(Number)}})
    expect(new Set(seen)).toEqual(new Set(STAGES.flatMap((s) => [`stages:${s.name}`, `verify:${s.name}`])))
    const entry = readManifest(dataDir).regions.monaco
    expect(entry).toMatchObject({dir: r.dir, generation: r.generation, db: 'map.db', blobs: {places: 'places.bin'}})
    expect(mapFiles(dataDir)).toEqual(regionFiles(r))
    expect(readFileSync(path.join(dataDir, 'map', r.dir, 'places.bin')).length).toBe(r.stages[0].blobs.places)
  })

  it('a stage may add its own tables to map.db and report progress', async () => {
    const dataDir = fresh()
    const stage: MapStage = {
      name: 'extra',
      async build(ctx) {
        ctx.db.exec('CREATE TABLE extra_counts AS SELECT category, count(*) AS n FROM places GROUP BY category')
        await ctx.progress(1, 1)
        ctx.warn('only a test')
      },
      verify(ctx) {
        expect(() => ctx.db.exec('DELETE FROM extra_counts')).toThrow(/readonly/)
        expect(() => ctx.writeBlob('late', {})).toThrow(/written in build, not in verify/)
      },
    }
    const r = await importOsm(MONACO, {dataDir, stages: [stage]})
    expect(r.warnings).toContain('extra: only a test')
    const map = openMapData(dataDir)
    expect(count(map.db('monaco')!, 'SELECT sum(n) FROM extra_counts')).toBe(r.built.places)
    map.close()
  })
})

describe('staged import: failures change nothing', () => {
  async function served(dataDir: string) {
    await importOsm(MONACO, {dataDir})
    const map = openMapData(dataDir, {checkMs: 0})
    const before = {files: snapshot(dataDir), db: map.db('monaco')!, engine: placeIndex(map, 'monaco')!}
    return {map, before}
  }

  async function expectUnchanged(dataDir: string, stages: MapStage[], error: RegExp) {
    const {map, before} = await served(dataDir)
    await expect(importOsm(fixture('liechtenstein.osm.pbf'), {dataDir, region: 'monaco', stages})).rejects.toThrow(error)
    expect(snapshot(dataDir)).toEqual(before.files)
    // the running reader still serves the previous region, handles and engines untouched
    expect(map.db('monaco')).toBe(before.db)
    expect(placeIndex(map, 'monaco')).toBe(before.engine)
    expect(before.engine.closed).toBe(false)
    map.close()
    // the next import sweeps nothing extra and leaves only its own region
    const r = await importOsm(MONACO, {dataDir})
    expect(mapFiles(dataDir)).toEqual(regionFiles(r))
  }

  it('a stage that throws aborts the import', async () => {
    const boom: MapStage = {name: 'boom', build: () => {
      throw new Error('no routing graph today')
    }}
    await expectUnchanged(fresh(), [...STAGES, boom], /^stage boom: failed: no routing graph today$/)
  })

  it('a blob corrupted after it was written fails verify and the swap does not happen', async () => {
    const corrupt: MapStage = {name: 'corrupt', build(ctx) {
      ctx.writeBlob('corrupt', {data: Float64Array.from([1, 2, 3])})
      const file = ctx.blobFile('corrupt')
      const bytes = readFileSync(file)
      bytes[bytes.length - 3] ^= 1
      writeFileSync(file, bytes)
    }}
    await expectUnchanged(fresh(), [...STAGES, corrupt], /^verify: .*\/corrupt\.bin: checksum mismatch: the blob is corrupt$/)
  })

  it('a stage whose verify throws, a stray file and an abort during the stages also change nothing', async () => {
    const picky: MapStage = {name: 'picky', build() {}, verify: () => {
      throw new Error('0 edges')
    }}
    await expectUnchanged(fresh(), [picky], /^stage picky: verify failed: 0 edges$/)
    const stray: MapStage = {name: 'stray', build: (ctx) => writeFileSync(ctx.blobFile('unlisted'), 'x')}
    await expectUnchanged(fresh(), [stray], /unexpected files in the build: unlisted\.bin/)
    const dataDir = fresh()
    const {map, before} = await served(dataDir)
    const abort = new AbortController()
    const slow: MapStage = {name: 'slow', async build(ctx) {
      abort.abort()
      await ctx.progress(1, 2)
    }}
    await expect(importOsm(MONACO, {dataDir, stages: [slow], signal: abort.signal})).rejects.toThrow(/abort/i)
    expect(snapshot(dataDir)).toEqual(before.files)
    map.close()
  })
})

describe('version-1 stores', () => {
  /** Rewrites a fresh import into the version-1 layout: data/map/<region>-<stamp>.db and a v1 manifest. */
  async function v1Store(dataDir: string): Promise<string> {
    const r = await importOsm(MONACO, {dataDir})
    const dir = path.join(dataDir, 'map')
    const file = `monaco-${r.generation}.db`
    renameSync(path.join(dir, r.dir, 'map.db'), path.join(dir, file))
    rmSync(path.join(dir, r.dir), {recursive: true})
    const {bbox, counts, source, importedAt} = readManifest(dataDir).regions.monaco
    writeFileSync(path.join(dir, 'manifest.json'), JSON.stringify({version: 1, regions: {monaco: {file, source, importedAt, bbox, counts}}}))
    return file
  }

  it('are served as they are, and an --add import keeps their file', async () => {
    const dataDir = fresh()
    const file = await v1Store(dataDir)
    expect(readManifest(dataDir).regions.monaco).toMatchObject({dir: '', db: file, blobs: {}, generation: file})
    const map = openMapData(dataDir, {checkMs: 0})
    const db = map.db('monaco')!
    expect(db.name).toBe(path.join(dataDir, 'map', file))
    const places = count(db, 'SELECT count(*) FROM places')
    // no places.bin: the index is built from the database on first use
    expect(placeIndex(map, 'monaco')!.ids.length).toBe(places)

    mkdirSync(path.join(dataDir, 'map', 'saved-2024')) // named like a region directory, but not ours: left alone
    writeFileSync(path.join(dataDir, 'map', 'saved-2024', 'notes.txt'), 'mine')
    const r = await importOsm(fixture('liechtenstein.osm.pbf'), {dataDir, add: true})
    const manifest = readManifest(dataDir)
    expect(manifest.version).toBe(2)
    expect(manifest.regions.monaco).toMatchObject({dir: '', db: file})
    expect(mapFiles(dataDir).filter((f) => !f.includes('/'))).toEqual(['manifest.json', file, r.dir, 'saved-2024'].sort())
    expect(map.db('monaco')).toBe(db) // its generation did not change: same handle
    expect(count(map.db('liechtenstein')!, 'SELECT count(*) FROM places')).toBe(r.built.places)
    map.close()

    await importOsm(MONACO, {dataDir}) // replaces the set: the v1 file goes
    expect(mapFiles(dataDir).filter((f) => f.endsWith('.db'))).toEqual([`${readManifest(dataDir).regions.monaco.dir}/map.db`])
  })
})
