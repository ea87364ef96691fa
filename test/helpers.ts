import {execFile, spawn} from 'node:child_process'
import {afterEach, beforeEach, expect} from 'vitest'
import {mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync} from 'node:fs'
import type {Socket} from 'node:net'
import os from 'node:os'
import path from 'node:path'
import type {RunningServer} from '../src/api/server.js'
import {type Config, loadConfig} from '../src/config/index.js'
import {createLogger} from '../src/log.js'
import {createKey} from '../src/project/keys.js'
import {openStore, type Store} from '../src/store/db.js'
import {openSystem, serve, type System} from '../src/system.js'

export interface TestKeys {
  testPk: string
  testSk: string
  livePk: string
  liveSk: string
}

export interface TestServer extends RunningServer {
  system: System
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

/** A fresh store in its own temp dir for each test of the calling file, closed and removed after it. */
export function freshStore(): {readonly store: Store; readonly dir: string} {
  const current = {} as {store: Store; dir: string}
  beforeEach(async () => {
    current.dir = tempDir()
    current.store = await openStore(current.dir)
  })
  afterEach(async () => {
    await current.store.close()
    rmSync(current.dir, {recursive: true, force: true})
  })
  return {
    get store() {
      return current.store
    },
    get dir() {
      return current.dir
    },
  }
}

const GENEROUS_LIMITS = Object.fromEntries(
  ['track', 'geocode', 'ipGeocode', 'search', 'searchPlaces', 'validate', 'matrix', 'routing', 'data', 'staticMaps', 'config'].map((g) => [g, 100_000]),
)

/**
 * A real server on a real port over a real SQLite file in a temp dir, with the four keys, built by
 * the composition root as `loc serve` builds it (timed jobs only with `jobs: true`).
 */
export async function startTestServer(overrides: Record<string, unknown> = {}, options: {jobs?: boolean} = {}): Promise<TestServer> {
  const dataDir = tempDir()
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: GENEROUS_LIMITS, ...overrides}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const {store} = system
  const keys: TestKeys = {
    testPk: createKey(store, 'publishable', 'test').key,
    testSk: createKey(store, 'secret', 'test').key,
    livePk: createKey(store, 'publishable', 'live').key,
    liveSk: createKey(store, 'secret', 'live').key,
  }
  const serving = await serve(system, {jobs: options.jobs ?? false})
  const server = serving.server
  return {
    ...server,
    system,
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
      await serving.stop()
      await system.close()
      rmSync(dataDir, {recursive: true, force: true})
    },
  }
}

export interface ServeProcess {
  url: string
  /** The process's id (with `--workers`, the primary's). */
  pid: number
  /** Everything the process printed so far, stdout and stderr. */
  output(): string
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>
  /** Any signal (SIGKILL for a crash), then the exit code or signal. */
  kill(signal: NodeJS.Signals): Promise<number | string | null>
}

export interface LocRun {
  code: number
  stdout: string
  stderr: string
}

/**
 * `loc ARGS` as a real process (the built CLI, no terminal, LOC_LOG_LEVEL=silent unless `env` sets
 * it); resolves with its exit code and output. `via` runs node through another command (`setpriv`
 * as another user).
 */
export function runLoc(args: string[], env: Record<string, string | undefined> = {}, via: string[] = []): Promise<LocRun> {
  const command = [...via, 'node', path.resolve('bin/run.js'), ...args]
  return new Promise((resolve) => {
    execFile(command[0], command.slice(1), {env: {...process.env, LOC_LOG_LEVEL: 'silent', ...env}}, (error, stdout, stderr) => {
      resolve({code: error ? (error.code as number) : 0, stdout, stderr})
    })
  })
}

/** `loc serve ARGS` as a real process, from its first moment: `listening` resolves with its URL, rejects if it exits first. */
export function launchServe(args: string[], env: Record<string, string | undefined>): Omit<ServeProcess, 'url'> & {listening: Promise<string>} {
  const child = spawn('node', [path.resolve('bin/run.js'), 'serve', '--port', '0', ...args], {env: {...process.env, LOC_LOG_LEVEL: 'silent', ...env}})
  let out = ''
  const exited = new Promise<number | null>((resolve) => child.once('exit', resolve))
  child.stderr.on('data', (chunk) => (out += chunk))
  const listening = new Promise<string>((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      out += chunk
      const match = /listening on (http:\/\/\S+)/.exec(out)
      if (match) resolve(match[1])
    })
    void exited.then((code) => reject(new Error(`serve exited ${code}: ${out}`)))
  })
  listening.catch(() => undefined) // a launch stopped before it listens need not wait for it
  return {
    pid: child.pid!,
    listening,
    output: () => out,
    stop() {
      child.kill('SIGTERM')
      return exited
    },
    kill(signal) {
      child.kill(signal)
      return exited.then((code) => code ?? child.signalCode)
    },
  }
}

/** `loc serve ARGS` as a real process (the built CLI); resolves once it listens. */
export async function spawnServe(args: string[], env: Record<string, string | undefined>): Promise<ServeProcess> {
  const launched = launchServe(args, env)
  return {...launched, url: await launched.listening}
}

/** The processes `pid` started and that still run (a `loc serve --workers` primary's workers), by id. */
export function childrenOf(pid: number): number[] {
  try {
    return readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').split(' ').filter(Boolean).map(Number)
  } catch {
    return [] // it ended
  }
}

/** Whether process `pid` still runs (a zombie not yet reaped by its parent counts as ended). */
export function running(pid: number): boolean {
  try {
    return !/^State:\s+Z/m.test(readFileSync(`/proc/${pid}/status`, 'utf8'))
  } catch {
    return false
  }
}

/** The process among `pids` that holds the server's end of `socket`, a TCP connection to 127.0.0.1 (by the end's inode in /proc/net/tcp). */
export function holderOf(socket: Socket, pids: number[]): number | undefined {
  const port = (n: number) => `:${n.toString(16).toUpperCase().padStart(4, '0')}`
  const end = readFileSync('/proc/net/tcp', 'utf8').split('\n').map((line) => line.trim().split(/\s+/))
    .find(([, local, remote]) => local?.endsWith(port(socket.remotePort!)) && remote?.endsWith(port(socket.localPort!)))
  const inode = end?.[9]
  const holds = (pid: number) => {
    try {
      return readdirSync(`/proc/${pid}/fd`).some((fd) => readlinkSafe(`/proc/${pid}/fd/${fd}`) === `socket:[${inode}]`)
    } catch {
      return false // it ended
    }
  }
  return inode ? pids.find(holds) : undefined
}

const readlinkSafe = (file: string) => {
  try {
    return readlinkSync(file)
  } catch {
    return undefined // closed between the listing and the read
  }
}

/**
 * Seeded malformed query strings for a route's fuzz test: each names a random subset of `params`
 * (each kept with probability `keep`) with values from `junk`, and one in five adds a nested
 * `param[x]=1`. The same seed gives the same queries on every run.
 */
export function seededQueries(options: {seed: number; count: number; params: string[]; junk: string[]; keep?: number}): string[] {
  let seed = options.seed
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
  const {params, junk, keep = 0.7} = options
  const queries: string[] = []
  for (let i = 0; i < options.count; i++) {
    const parts = params.filter(() => rand() < keep).map((p) => `${p}=${junk[Math.floor(rand() * junk.length)]}`)
    if (rand() < 0.2) parts.push(`${params[Math.floor(rand() * params.length)]}[x]=1`)
    queries.push(parts.join('&'))
  }
  return queries
}

/** A 400 `invalid_parameter` naming `param`, its message opening with the param (docs/errors.md). */
export function expectInvalidParameter(res: {status: number; body: any}, param: string): void {
  expect(res.status).toBe(400)
  expect(res.body.meta).toMatchObject({code: 400, error: 'invalid_parameter', param})
  expect(res.body.meta.message.startsWith(`${param}: `)).toBe(true)
}
