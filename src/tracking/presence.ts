import {randomInt} from 'node:crypto'
import {CompiledQuery} from 'kysely'
import {confidenceOf} from '../geofences/confidence.js'
import {type Fence, geofenceEngine, shareInside} from '../geofences/index.js'
import {ipMatches} from '../geofences/ip.js'
import {isOperating} from '../geofences/operating-hours.js'
import type {Settings} from '../project/settings.js'
import type {Store} from '../store/db.js'
import type {Tx} from '../store/write.js'

/**
 * Hysteresis against GPS jitter: an exit is judged against the geofence grown by this many metres,
 * so fixes wandering a few metres either side of the boundary never flap entry/exit.
 */
export const EXIT_MARGIN = 10

/** A fix as presence sees it. */
export interface Fix {
  lng: number
  lat: number
  /** metres; 0 when the client sent none (the point is exact) */
  accuracy: number
  stopped: boolean
  foreground: boolean
  userId: string | null
  ip: string
  at: Date
}

export type GeofenceEventType = 'user.entered_geofence' | 'user.exited_geofence' | 'user.dwelled_in_geofence'

export interface GeofenceTransition {
  type: GeofenceEventType
  fence: Fence
  confidence: number
  /** exits: minutes since the entry */
  duration?: number
}

/** The user row's presence stamp as read (`stamp`) and as this track writes it (`next`). */
export interface PresenceStamp {
  stamp: number | null
  next: number
  newUser: boolean
}

export interface Moved {
  transitions: GeofenceTransition[]
  inside: Fence[]
  commit(): void
}

const PRESENCE_OF = 'SELECT geofence_id, entered_at, dwelled, confidence FROM geofence_presence WHERE user_ref = ?'
// written as SQL once: a fix at a busy spot writes dozens of presence rows
const ENTERED = 'INSERT INTO geofence_presence (user_ref, geofence_id, live, entered_at, dwelled, confidence) VALUES (?, ?, ?, ?, 0, ?)'
const LEFT = 'DELETE FROM geofence_presence WHERE user_ref = ? AND geofence_id = ?'
const DWELLED = 'UPDATE geofence_presence SET dwelled = 1 WHERE user_ref = ? AND geofence_id = ?'

interface PresenceRow {
  geofence_id: string
  entered_at: string
  dwelled: number
  confidence: number
}

/**
 * A user's presence rows as committed, with each row's geofence as the engine held it at
 * `generation` (undefined: gone from the engine): while the engine is unchanged, the rows need no
 * lookup among its geofences (~1 µs each at 100k, a cache miss or two).
 */
interface Committed {
  stamp: number
  rows: readonly PresenceRow[]
  fences: ReadonlyArray<Fence | undefined>
  generation: number
}

/** How many users' presence a process keeps (LRU); a user past it is read from the store again. */
const CACHE_USERS = 100_000

/**
 * Each user's presence rows as this process last committed them, under the stamp committed with
 * them on the user row. A track reads the user row anyway: when its stamp is the cached one, no
 * process has moved this presence since and the rows need no read (one statement of ~9 rows a
 * track at 100k geofences). Any other writer — another process, a rolled-back track — leaves a
 * different stamp, and the rows are read as before. Rows of geofences deleted since are still
 * listed here; the engine no longer knows them, so they end without an event, as read rows of a
 * disabled geofence do.
 */
class PresenceCache {
  private byUser = new Map<string, Committed>()

  get(user: string, stamp: number | null): Committed | undefined {
    const entry = this.byUser.get(user)
    return entry && entry.stamp === stamp ? entry : undefined
  }

  set(user: string, entry: Committed): void {
    this.byUser.delete(user)
    this.byUser.set(user, entry)
    if (this.byUser.size > CACHE_USERS) this.byUser.delete(this.byUser.keys().next().value!)
  }
}

const caches = new WeakMap<Store, PresenceCache>()
const cacheOf = (store: Store) => caches.get(store) ?? caches.set(store, new PresenceCache()).get(store)!

// a random tag per process, then a counter: no two processes (or lives of one) write the same stamp
const PROCESS_TAG = randomInt(2 ** 31)
let stamps = 0

/** The stamp a track writes on the user row with the presence it commits. */
export function nextPresenceStamp(): number {
  stamps = (stamps + 1) % 2 ** 21
  return PROCESS_TAG * 2 ** 21 + stamps
}

const bySortKey = (a: Fence, b: Fence) => (a.sortKey < b.sortKey ? -1 : a.sortKey > b.sortKey ? 1 : 0)
const byFence = (a: {fence: Fence}, b: {fence: Fence}) => bySortKey(a.fence, b.fence)

/** Whether the geofence may generate an entry for this fix (userIds, ip, disableAfter). */
function admits(fence: Fence, fix: Fix): boolean {
  if (fix.at.getTime() >= fence.disableAfter) return false
  if (fence.userIds && !(fix.userId && fence.userIds.has(fix.userId))) return false
  if (fence.ips && !ipMatches(fence.ips, fix.ip)) return false
  return true
}

const operating = (fence: Fence, at: Date) => (fence.hours ? isOperating(fence.hours, at) : true)

/**
 * Moves one user's geofence presence for a fix, inside the caller's write: reads the presence rows
 * (so whichever process or worker handles the next fix sees this one's outcome), decides exits,
 * entries and dwells (DECISIONS; docs/api/tracking.md), writes the new presence. Returns the
 * transitions in order (exits, entries, dwells; each sorted by tag, externalId, id) and the
 * geofences the user is now inside, and `commit` to write the new presence once the user row is
 * written. `generate: false` (fraud block) changes nothing.
 */
export function movePresence(tx: Tx, live: boolean, userRef: string, fix: Fix, settings: Settings, generate: boolean, stamp: PresenceStamp): Moved {
  const {store} = tx
  const engine = geofenceEngine(store)
  const cache = cacheOf(store)
  const cached = stamp.newUser ? undefined : cache.get(userRef, stamp.stamp)
  const rows = stamp.newUser ? [] : (cached?.rows ?? tx.all<PresenceRow>(CompiledQuery.raw(PRESENCE_OF, [userRef])))
  const generation = engine.generation()
  const fences = cached?.generation === generation ? cached.fences : rows.map((r) => engine.get(live, r.geofence_id))
  // the rows' geofences, by identity (a Map of their ids hashed and compared strings)
  const present = new Set<Fence>()
  const minConfidence = settings['geofences.minConfidence']
  const bufferExits = settings['geofences.bufferExits']
  const atIso = fix.at.toISOString()
  const atMs = fix.at.getTime()
  const exits: GeofenceTransition[] = []
  const entries: GeofenceTransition[] = []
  const dwells: GeofenceTransition[] = []
  const inside: Fence[] = []
  const gone: string[] = []

  for (let i = 0; i < rows.length; i++) {
    const row = rows[i], fence = fences[i]
    if (fence) present.add(fence)
    // disabled, deleted or past disableAfter: the presence ends without an event (it generates none)
    if (!fence || atMs >= fence.disableAfter) {
      gone.push(row.geofence_id)
      continue
    }
    // without buffer exits a centre still inside decides alone: the disc's share (256 samples of a
    // grown polygon, ~10 µs) is only worked out for the few fixes that may exit
    const centreOut = bufferExits || shareInside(fence, fix.lng, fix.lat, 0, EXIT_MARGIN) === 0
    const confidence = centreOut ? confidenceOf(1 - shareInside(fence, fix.lng, fix.lat, fix.accuracy, EXIT_MARGIN)) : 0
    const exit = bufferExits ? confidence === 3 : centreOut && confidence >= minConfidence
    if (exit) {
      gone.push(row.geofence_id)
      const duration = Math.round((atMs - Date.parse(row.entered_at)) / 600) / 100
      exits.push({type: 'user.exited_geofence', fence, confidence, duration: Math.max(0, duration)})
      continue
    }
    inside.push(fence)
    const threshold = fence.dwellThreshold
    if (settings['events.dwell'] && threshold !== null && row.dwelled === 0 && atMs - Date.parse(row.entered_at) >= threshold * 60_000
      && (!settings['geofences.operatingHoursOnly'] || operating(fence, fix.at))) {
      dwells.push({type: 'user.dwelled_in_geofence', fence, confidence: row.confidence})
    }
  }

  const stopRequired = settings['geofences.stopDetection']
  const moving = !fix.stopped && !fix.foreground
  for (const fence of engine.near(live, fix.lng, fix.lat, fix.accuracy)) {
    if (present.has(fence) || !admits(fence, fix)) continue
    if (moving && (fence.stopDetection ?? stopRequired)) continue
    if (settings['geofences.operatingHoursOnly'] && !operating(fence, fix.at)) continue
    const buffer = settings['geofences.bufferEntries']
    // without buffer entries the point itself must be inside: a cheap test that spares the share
    if (!buffer && shareInside(fence, fix.lng, fix.lat, 0) !== 1) continue
    const confidence = confidenceOf(shareInside(fence, fix.lng, fix.lat, fix.accuracy))
    const enter = buffer ? confidence >= 1 : confidence >= minConfidence
    if (enter) {
      entries.push({type: 'user.entered_geofence', fence, confidence})
      inside.push(fence)
    }
  }

  const dwelled = dwells.map((d) => d.fence.id)
  const commit = () => {
    if (!generate) {
      tx.afterCommit(() => cache.set(userRef, {stamp: stamp.next, rows, fences, generation}))
      return
    }
    for (const id of dwelled) tx.run(CompiledQuery.raw(DWELLED, [userRef, id]))
    for (const id of gone) tx.run(CompiledQuery.raw(LEFT, [userRef, id]))
    for (const {fence, confidence} of entries) tx.run(CompiledQuery.raw(ENTERED, [userRef, fence.id, live ? 1 : 0, atIso, confidence]))
    const left = new Set(gone)
    const now: PresenceRow[] = []
    const nowFences: Fence[] = []
    rows.forEach((r, i) => {
      if (left.has(r.geofence_id)) return
      now.push(dwelled.includes(r.geofence_id) ? {...r, dwelled: 1} : r)
      nowFences.push(fences[i]!)
    })
    for (const {fence, confidence} of entries) {
      now.push({geofence_id: fence.id, entered_at: atIso, dwelled: 0, confidence})
      nowFences.push(fence)
    }
    tx.afterCommit(() => cache.set(userRef, {stamp: stamp.next, rows: now, fences: nowFences, generation}))
  }
  if (!generate) {
    const kept = fences.filter((f): f is Fence => f !== undefined).sort(bySortKey)
    return {transitions: [], inside: kept, commit}
  }
  inside.sort(bySortKey)
  return {transitions: [...exits.sort(byFence), ...entries.sort(byFence), ...dwells.sort(byFence)], inside, commit}
}

/** `currentlyOperating` for geofence events: present only when the geofence has operating hours. */
export function operatingField(fence: Fence, at: Date): {currentlyOperating?: boolean} {
  return fence.hours ? {currentlyOperating: isOperating(fence.hours, at)} : {}
}
