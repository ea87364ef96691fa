import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {startServer, type RunningServer} from '../src/api/server.js'
import {type Config, loadConfig} from '../src/config/index.js'
import {createLogger} from '../src/log.js'
import {createKey} from '../src/project/keys.js'
import {openStore, type Store} from '../src/store/db.js'

export interface TestKeys {
  testPk: string
  testSk: string
  livePk: string
  liveSk: string
}

export interface TestServer extends RunningServer {
  store: Store
  config: Config
  dataDir: string
  keys: TestKeys
  /** fetch against the server with a key (or none) and JSON bodies. */
  call(method: string, path: string, options?: {key?: string; body?: unknown; headers?: Record<string, string>}): Promise<{status: number; headers: Headers; body: any}>
  stop(): Promise<void>
}

export function tempDir(prefix = 'loc-test-'): string {
  return mkdtempSync(path.join(os.tmpdir(), prefix))
}

const GENEROUS_LIMITS = Object.fromEntries(
  ['track', 'geocode', 'ipGeocode', 'search', 'searchPlaces', 'validate', 'matrix', 'routing', 'data', 'staticMaps', 'config'].map((g) => [g, 100_000]),
)

/** A real server on a real port over a real SQLite file in a temp dir, with the four keys. */
export async function startTestServer(overrides: Record<string, unknown> = {}): Promise<TestServer> {
  const dataDir = tempDir()
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: GENEROUS_LIMITS, ...overrides}})
  const store = await openStore(dataDir)
  const keys: TestKeys = {
    testPk: (await createKey(store, 'publishable', 'test')).key,
    testSk: (await createKey(store, 'secret', 'test')).key,
    livePk: (await createKey(store, 'publishable', 'live')).key,
    liveSk: (await createKey(store, 'secret', 'live')).key,
  }
  const server = await startServer({config, store, log: createLogger('silent')})
  return {
    ...server,
    store,
    config,
    dataDir,
    keys,
    async call(method, urlPath, options = {}) {
      const headers: Record<string, string> = {...options.headers}
      if (options.key) headers.authorization = options.key
      let body: string | undefined
      if (options.body !== undefined) {
        body = typeof options.body === 'string' ? options.body : JSON.stringify(options.body)
        headers['content-type'] ??= 'application/json'
      }
      const response = await fetch(server.url + urlPath, {method, headers, body})
      const text = await response.text()
      let parsed: unknown = text
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON: the assertion will show the text
      }
      return {status: response.status, headers: response.headers, body: parsed}
    },
    async stop() {
      await server.close()
      await store.close()
      rmSync(dataDir, {recursive: true, force: true})
    },
  }
}
