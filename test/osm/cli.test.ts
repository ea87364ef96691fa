import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {readManifest} from '../../src/map/index.js'
import {runLoc, spawnServe} from '../helpers.js'
import {snapshot, tempDataDir} from './helpers.js'

// Runs the built CLI (`npm test` builds first).
const dataDir = tempDataDir()
afterAll(() => rmSync(dataDir, {recursive: true, force: true}))

const loc = (...args: string[]) => runLoc(args)

describe('loc import osm', () => {
  it('imports the bundled Monaco extract and prints a summary', async () => {
    const {code, stdout, stderr} = await loc('import', 'osm', 'data/monaco.osm.pbf', '--data-dir', dataDir)
    expect(stderr).toMatch(/could not be assembled/) // the cut-off French relations, as a warning
    expect(code).toBe(0)
    expect(stdout).toMatch(/imported region "monaco" from data\/monaco.osm.pbf in [\d.]+ s \([\d.]+ MB\/s\)/)
    expect(stdout).toMatch(/read\s+41,361 nodes\s+6,180 ways\s+346 relations/)
    expect(stdout).toMatch(/addresses\s+420/)
    expect(stdout).toMatch(/admin\s+11 areas/)
    expect(stdout).toMatch(/© OpenStreetMap contributors/)
    expect(Object.keys(readManifest(dataDir).regions)).toEqual(['monaco'])
    // docs/osm-import.md shows this very import: its sample is what it prints, times aside
    const sample = /```\n\$ loc import osm data\/monaco\.osm\.pbf\n([\s\S]*?)```/.exec(readFileSync('docs/osm-import.md', 'utf8'))![1]
    const timeless = (text: string) => text.replace(/[\d.]+ (s|MB\/s)\b/g, '… $1')
    expect(timeless(sample)).toBe(timeless(stdout))
  })

  it('adds a region with --add --region and fails cleanly on a bad file', async () => {
    // a region name in any case is kept in lower case, as the one taken from a file name is
    const added = await loc('import', 'osm', 'data/monaco.osm.pbf', '--add', '--region', 'Demo', '--data-dir', dataDir)
    expect(added.code).toBe(0)
    expect(added.stderr.replace(/\s*›\s*/g, ' ').replace(/\s+/g, ' ')).toMatch(/region "demo" overlaps monaco: what both hold is answered and drawn once/)
    expect(added.stdout).toMatch(/^imported region "demo" from/)
    expect(Object.keys(readManifest(dataDir).regions).sort()).toEqual(['demo', 'monaco'])
    const before = snapshot(dataDir)
    const bad = path.join(dataDir, 'bad.osm.pbf')
    writeFileSync(bad, Buffer.alloc(1000, 7))
    const failed = await loc('import', 'osm', bad, '--data-dir', dataDir)
    expect(failed.code).toBe(2)
    expect(failed.stderr).toMatch(/^error \[invalid_parameter\]: file: must be an OSM PBF extract \(.*not an OSM PBF file\?\); the map store is unchanged\n$/)
    expect(snapshot(dataDir)).toEqual(before)
  })

  it('prints its warnings\' counts with thousands separators', async () => {
    const dir = tempDataDir()
    try {
      const {code, stderr} = await loc('import', 'osm', 'test/fixtures/osm/cut-off-boundaries.osm.pbf', '--data-dir', dir)
      expect(code).toBe(0)
      expect(stderr).toContain('1,101 warning(s):\n  1,100 admin/postal relation(s) could not be assembled (members outside the extract) and were skipped\n')
      expect(stderr).toContain('\n  … 1,096 more\n')
    } finally {
      rmSync(dir, {recursive: true, force: true})
    }
  })

  it('a running serve picks up a finished import without a restart', async () => {
    const dir = tempDataDir()
    const server = await spawnServe(['--data-dir', dir], {})
    try {
      const url = server.url
      const regions = async () => ((await (await fetch(`${url}/health`)).json()) as {map: {regions: string[]}}).map.regions.sort()
      const eventually = async (expected: string[]) => {
        const deadline = Date.now() + 10_000
        while ((await regions()).join() !== expected.join() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 100))
        expect(await regions()).toEqual(expected)
      }
      expect(await regions()).toEqual([])
      expect((await loc('import', 'osm', 'data/monaco.osm.pbf', '--data-dir', dir)).code).toBe(0)
      await eventually(['monaco'])
      const added = await loc('import', 'osm', 'test/fixtures/osm/liechtenstein.osm.pbf', '--add', '--data-dir', dir)
      expect(added.code).toBe(0)
      expect(added.stderr).not.toMatch(/overlaps/) // far from Monaco
      await eventually(['liechtenstein', 'monaco'])
    } finally {
      await server.stop()
      rmSync(dir, {recursive: true, force: true})
    }
  })
})
