import {readdirSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {loadConfig} from '../../src/config/index.js'
import {createLogger} from '../../src/log.js'
import {createKey} from '../../src/project/keys.js'
import {setSettings} from '../../src/project/settings.js'
import {openSystem, serve, type System} from '../../src/system.js'

/**
 * A scenario: setup through the API, then a trace of steps, each with the events it must produce
 * (`expect`: one line per event, see `summary`). Times are minutes after `start`.
 */
export interface Scenario {
  name: string
  start: string
  settings?: Record<string, unknown>
  geofences?: Array<Record<string, unknown>>
  beacons?: Array<Record<string, unknown>>
  trips?: Array<Record<string, unknown>>
  steps: Array<{at: number; track?: Record<string, unknown>; api?: {method: string; path: string; body?: unknown}; expect: string[]}>
}

export const FIXTURES = path.resolve('test/tracking/fixtures')

export function scenarios(): Scenario[] {
  return readdirSync(FIXTURES).filter((f) => f.endsWith('.json')).sort()
    .map((f) => ({name: f.replace(/\.json$/, ''), ...JSON.parse(readFileSync(path.join(FIXTURES, f), 'utf8'))}))
}

/** One line per event: type, what it is about, and the fields a scenario pins down. */
export function summary(event: any): string {
  const parts: string[] = [event.type]
  if (event.geofence) parts.push(`${event.geofence.tag}/${event.geofence.externalId}`)
  if (event.trip) parts.push(`trip=${event.trip.externalId}:${event.trip.status}`)
  if (event.trip?.delay?.delayed) parts.push('delayed')
  if (event.trip?.orderFiredAt) parts.push('orderFired')
  if (event.region) parts.push(`${event.region.type}=${event.region.code}`)
  if (event.beacon) parts.push(`beacon=${event.beacon.description}`)
  if (event.confidence !== undefined) parts.push(`confidence=${event.confidence}`)
  if (event.duration !== undefined) parts.push(`duration=${event.duration}`)
  if (event.currentlyOperating !== undefined) parts.push(`operating=${event.currentlyOperating}`)
  return parts.join(' ')
}

export interface Node {
  system: System
  url: string
  stop(): Promise<void>
}

/** A `loc serve` over `dataDir` in this process (several may share one store, as workers do). */
export async function startNode(dataDir: string): Promise<Node> {
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: Object.fromEntries(
    ['track', 'geocode', 'ipGeocode', 'search', 'searchPlaces', 'validate', 'matrix', 'routing', 'data', 'staticMaps', 'config'].map((g) => [g, 100_000]))}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const serving = await serve(system, {jobs: false})
  return {system, url: serving.server.url, async stop() {
    await serving.stop()
    await system.close()
  }}
}

export async function call(url: string, key: string, method: string, urlPath: string, body?: unknown): Promise<{status: number; body: any}> {
  const response = await fetch(url + urlPath, {
    method: method.toUpperCase(), headers: {authorization: key, ...(body === undefined ? {} : {'content-type': 'application/json'})},
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  const text = await response.text()
  return {status: response.status, body: text ? JSON.parse(text) : text}
}

/**
 * Plays a scenario against the nodes `pick` chooses per step (restart or alternate workers by
 * changing what it returns); answers each step's event lines.
 */
export async function play(scenario: Scenario, first: Node, pick: (step: number) => Promise<Node>): Promise<string[][]> {
  const pk = createKey(first.system.store, 'publishable', 'test').key
  const sk = createKey(first.system.store, 'secret', 'test').key
  const setup = async (method: string, p: string, body: unknown) => {
    const res = await call(first.url, sk, method, p, body)
    if (res.status >= 300) throw new Error(`${method} ${p}: ${res.status} ${JSON.stringify(res.body)}`)
  }
  if (scenario.settings) await setSettings(first.system.store, false, scenario.settings)
  for (const g of scenario.geofences ?? []) await setup('put', `/v1/geofences/${g.tag}/${g.externalId}`, g)
  for (const b of scenario.beacons ?? []) await setup('post', '/v1/beacons', b)
  for (const t of scenario.trips ?? []) await setup('post', '/v1/trips', t)
  const start = Date.parse(scenario.start)
  const out: string[][] = []
  for (const [i, step] of scenario.steps.entries()) {
    const node = await pick(i)
    const at = new Date(start + step.at * 60_000).toISOString()
    const res = step.track
      ? await call(node.url, pk, 'post', '/v1/track', {deviceId: 'device-1', userId: 'user-1', accuracy: 10, updatedAt: at, ...step.track})
      : await call(node.url, sk, step.api!.method, step.api!.path, step.api!.body)
    if (res.status !== 200) throw new Error(`step ${i}: ${res.status} ${JSON.stringify(res.body)}`)
    const events = step.track ? res.body.events : []
    out.push(events.map(summary))
  }
  return out
}
