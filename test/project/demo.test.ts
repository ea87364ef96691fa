import {readFileSync, rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {ensureDemoMap} from '../../src/project/demo.js'
import {stageId} from '../../src/osm/stage.js'
import {STAGES} from '../../src/osm/stages.js'
import {tempDir} from '../helpers.js'

const dataDir = tempDir('loc-demo-')
afterAll(() => rmSync(dataDir, {recursive: true, force: true}))
const manifestFile = path.join(dataDir, 'map', 'manifest.json')
const manifest = () => JSON.parse(readFileSync(manifestFile, 'utf8'))

describe('the demo map', () => {
  it('is imported on the first start with every stage, then left alone', async () => {
    const first = await ensureDemoMap(dataDir)
    expect(first?.region).toBe('monaco')
    expect(manifest().regions.monaco.stages).toEqual(STAGES.map(stageId))
    expect(await ensureDemoMap(dataDir)).toBeUndefined()
  })

  it('is imported again when it was built before one of the current stages existed', async () => {
    const m = manifest()
    const old = m.regions.monaco.generation
    m.regions.monaco.stages = ['places']
    writeFileSync(manifestFile, JSON.stringify(m))
    const again = await ensureDemoMap(dataDir)
    expect(again?.replaced).toBe(true)
    expect(manifest().regions.monaco.generation).not.toBe(old)
    expect(manifest().regions.monaco.stages).toEqual(STAGES.map(stageId))
    // built by an older version of a stage (`maps` before version 2): imported again too
    const older = manifest()
    older.regions.monaco.stages = STAGES.map((s) => s.name)
    writeFileSync(manifestFile, JSON.stringify(older))
    expect((await ensureDemoMap(dataDir))?.replaced).toBe(true)
  })
})
