import type {Statement} from 'better-sqlite3'
import {type Change, followed} from '../store/changes.js'
import type {Store} from '../store/db.js'
import {type Fence, FENCE_COLUMNS, type FenceValues, fenceOf} from './fence.js'
import {EnvIndex, SLICE} from './tree.js'

export interface GeofenceEngine {
  /** Enabled geofences of the environment whose bbox comes within `m` metres of lng/lat. */
  near(live: boolean, lng: number, lat: number, m: number): Fence[]
  get(live: boolean, id: string): Fence | undefined
  /** The enabled geofence of the environment with this tag and externalId. */
  keyed(live: boolean, tag: string, externalId: string): Fence | undefined
  /**
   * The largest `tripApproachingThreshold` of the environment's keyed geofences, 0 when none has
   * one: no trip's destination can give it a larger one (the trip-orders job's read, trips/orders.ts).
   */
  largestTripApproachingThreshold(live: boolean): number
  size(live: boolean): number
  /**
   * Changes whenever a Fence object may have been replaced (changes applied, a rebuild): Fences
   * held from one generation are the engine's own until the next.
   */
  generation(): number
  /** Resolves once no rebuild runs in the background. */
  settled(): Promise<void>
}

/**
 * The geofence engine of a store: every enabled geofence of both environments, kept in step with
 * the change feed (any process's writes), so a track never queries SQL for geofences.
 *
 * Only its first build blocks. Later rebuilds (past the feed's threshold of changes at once, a
 * bulk import) read the store, and tree rebuilds (past OVERLAY_MAX changes) copy the fences, a
 * slice per turn of the event loop while the current indexes answer; the geofences changed
 * meanwhile are read again before the new indexes take over. Until then a bulk change is not yet
 * seen by tracks, as during its import.
 */
export const geofenceEngine = followed((store: Store) => {
  let envs = [new EnvIndex(), new EnvIndex()]
  /** 0 until the first build, which alone blocks. */
  let generation = 0
  /** The geofences changed since the running background rebuild began (undefined when none runs). */
  let changedSince: Set<string> | undefined
  let running: Promise<void> | undefined
  let statements: {one: Statement; slice: Statement} | undefined
  const prepared = () => (statements ??= {
    one: store.sqlite.prepare(`SELECT ${FENCE_COLUMNS} FROM geofences WHERE id = ? AND enabled = 1`).raw(),
    slice: store.sqlite.prepare(`SELECT ${FENCE_COLUMNS}, rowid FROM geofences WHERE enabled = 1 AND rowid > ? ORDER BY rowid LIMIT ${SLICE}`).raw(),
  })

  const reread = (id: string) => {
    const row = prepared().one.get(id) as FenceValues | undefined
    for (const env of envs) env.remove(id)
    if (row) envs[row[1]].put(fenceOf(row))
  }

  function* fromStore(): Generator<void, EnvIndex[]> {
    const fences: Fence[][] = [[], []]
    for (let after = 0; ;) {
      const rows = prepared().slice.all(after) as Array<FenceValues & {23: number}>
      for (const row of rows) fences[row[1]].push(fenceOf(row))
      if (rows.length < SLICE) break
      after = rows[rows.length - 1][23]
      yield
    }
    return yield* indexed(fences)
  }

  function* fromMemory(): Generator<void, EnvIndex[]> {
    return yield* indexed(envs.map((env) => [...env.byId.values()]))
  }

  function* indexed(fences: Fence[][]): Generator<void, EnvIndex[]> {
    const next = [new EnvIndex(), new EnvIndex()]
    for (const live of [0, 1]) yield* next[live].loading(fences[live])
    return next
  }

  const takeOver = (next: EnvIndex[], changed: Iterable<string>) => {
    envs = next
    for (const id of changed) reread(id)
    generation++
  }

  const inBackground = (steps: Generator<void, EnvIndex[]>) => {
    const changed = (changedSince = new Set())
    running = (async () => {
      for (;;) {
        await new Promise(setImmediate)
        // superseded by a newer rebuild, or the store closed under it
        if (changedSince !== changed || !store.sqlite.open) return
        const step = steps.next()
        if (step.done) {
          changedSince = undefined
          return takeOver(step.value, changed)
        }
      }
    })().catch((error: Error) => {
      // the current index keeps answering; a rebuild from the table is tried again in a second
      if (changedSince === changed) changedSince = undefined
      process.emitWarning(`geofence index rebuild failed, retrying in 1 s: ${error.message}`)
      setTimeout(() => store.sqlite.open && !changedSince && inBackground(fromStore()), 1000).unref()
    })
  }

  const engine = {
    kinds: ['geofences'] as const,
    threshold: 5000,
    rebuild() {
      if (generation > 0) return inBackground(fromStore())
      const steps = fromStore()
      let step = steps.next()
      while (!step.done) step = steps.next()
      takeOver(step.value, [])
    },
    apply(changes: readonly Change[]) {
      for (const change of changes) {
        reread(change.ref)
        changedSince?.add(change.ref)
      }
      if (!changedSince && envs.some((env) => env.worn)) inBackground(fromMemory())
      generation++
    },
    near: (live: boolean, lng: number, lat: number, m: number) => envs[live ? 1 : 0].search(lng, lat, m),
    get: (live: boolean, id: string) => envs[live ? 1 : 0].byId.get(id),
    keyed: (live: boolean, tag: string, externalId: string) => envs[live ? 1 : 0].keyed(tag, externalId),
    largestTripApproachingThreshold: (live: boolean) => envs[live ? 1 : 0].largestTripApproachingThreshold(),
    size: (live: boolean) => envs[live ? 1 : 0].size,
    generation: () => generation,
    async settled() {
      while (running) {
        const now = running
        await now
        if (running === now) running = undefined
      }
    },
  }
  return engine
}) as (store: Store) => GeofenceEngine
