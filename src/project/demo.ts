import {existsSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {PACKAGE_ROOT} from '../config/index.js'
import {readManifest} from '../map/index.js'
import {importOsm, type ImportResult} from '../osm/index.js'
import {stageId} from '../osm/stage.js'
import {STAGES} from '../osm/stages.js'
import type {Store} from '../store/db.js'
import {createKey, type KeyEnv, type KeyType} from './keys.js'

export type DemoKeys = Record<`${KeyEnv}_${KeyType}`, string>

export const DEMO_KEYS_FILE = 'demo-keys.json'
export const BUNDLED_EXTRACT = path.join(PACKAGE_ROOT, 'data', 'monaco.osm.pbf')

/** What the demo's first-start setup found or made: the keys to print, and the import if one ran. */
export interface DemoSetup {
  keys: DemoKeys
  imported?: ImportResult
}

/** The demo's setup on every start: its keys, then the bundled map where needed. */
export async function setUpDemo(store: Store, dataDir: string): Promise<DemoSetup> {
  const keys = await ensureDemoKeys(store, dataDir)
  return {keys, imported: await ensureDemoMap(dataDir)}
}

/**
 * The quick start prints working keys on every start, yet keys are stored hashed: so the demo
 * creates its four keys once and keeps them in clear in `<dataDir>/demo-keys.json` (mode 0600,
 * git-ignored). Production setups use `loc init` or `loc keys create`, which show a key once.
 */
export async function ensureDemoKeys(store: Store, dataDir: string): Promise<DemoKeys> {
  const file = path.join(dataDir, DEMO_KEYS_FILE)
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as DemoKeys
  const keys = {} as DemoKeys
  for (const env of ['test', 'live'] as const) {
    for (const type of ['publishable', 'secret'] as const) keys[`${env}_${type}`] = (await createKey(store, type, env)).key
  }
  writeFileSync(file, JSON.stringify(keys, null, 2) + '\n', {mode: 0o600})
  return keys
}

/**
 * Imports the bundled Monaco extract when no map region exists yet, or again when the demo region
 * was built before one of today's stages existed (a data dir from an older loc would otherwise serve
 * without routing, geocoding or map drawing). Undefined when nothing needed importing.
 */
export async function ensureDemoMap(dataDir: string): Promise<ImportResult | undefined> {
  const {regions} = readManifest(dataDir)
  const demo = regions.monaco
  const stale = demo !== undefined && demo.source === path.basename(BUNDLED_EXTRACT) && STAGES.some((s) => !demo.stages?.includes(stageId(s)))
  if (Object.keys(regions).length > 0 && !stale) return undefined
  return importOsm(BUNDLED_EXTRACT, {dataDir, region: 'monaco', add: true})
}
