import {confidenceOf} from '../geofences/confidence.js'
import {bySortKey, distanceTo, type Fence, inForceAt, shareInside, summaryText} from '../geofences/fence.js'
import {geofenceEngine} from '../geofences/index.js'
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

/**
 * The most geofences a user is inside at once. Each event embeds the user and its geofences, so a
 * fix entering n overlapping geofences wrote n² summaries: 2,000 of them at one point wrote 1.2 GB
 * of events and failed to answer. Past it, the entries of highest confidence (then in answer order)
 * are kept; the others may enter once the user has left some (docs/api/tracking.md).
 */
export const MAX_INSIDE = 100

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
  confidence: 0 | 1 | 2 | 3
  /** exits: minutes since the entry */
  duration?: number
}

export interface Moved {
  transitions: GeofenceTransition[]
  /** The geofences the user is inside after this fix, in answer order. */
  inside: readonly Fence[]
  /** Their summaries as JSON, comma-joined (`summaryText`), for the user's `geofences`. */
  insideText: string
  /** The user's presence as `users.presence` stores it after this fix. */
  presence: string | null
}

/**
 * One geofence the user is inside: [geofenceId, enteredAt, dwelled (0/1), confidence of the
 * entry]; `users.presence` is the JSON array of them.
 */
type PresenceRow = [id: string, enteredAt: string, dwelled: 0 | 1, confidence: 0 | 1 | 2 | 3]

/**
 * A user's presence as last parsed, with each row's geofence as the engine held it at `generation`
 * (undefined: gone from the engine). The text is its own key: when the user row still holds it,
 * the rows need no parse and, while the engine is unchanged, no lookup among its geofences (~1 µs
 * each at 100k, a cache miss or two). Whoever wrote the row, the same text means the same rows.
 */
interface Parsed {
  text: string
  rows: readonly PresenceRow[]
  fences: ReadonlyArray<Fence | undefined>
  generation: number
  /**
   * The rows' geofences in answer order (tag, externalId, `_id`), once a fix needed them: most fixes
   * change no presence and reuse them (sorting ~9 geofences by their keys was a few µs a track at
   * 100k, each key a cache miss or two). Their summaries' JSON is joined again for each answer
   * instead of kept here (~0.5 µs): kept, the ~2 KB text of each changed presence outlived the
   * young generation, and at 100k geofences each scavenge promoted 1.26 MB instead of 0.8.
   */
  inside?: readonly Fence[]
}

/** The geofences' summaries as JSON, comma-joined: what `user.geofences` holds between its brackets. */
const summariesText = (fences: readonly Fence[]) => fences.map(summaryText).join(',')

const DIGITS = ['0', '1', '2', '3'] as const

/**
 * `rows` as `users.presence` holds them: JSON.stringify's text, written out directly (half its
 * ~1.8 µs for 9 rows). Geofence ids (newId: hex) and ISO times never need escaping.
 */
function presenceText(rows: readonly PresenceRow[]): string {
  let text = '['
  for (let i = 0; i < rows.length; i++) {
    const r = rows[i]
    text += (i ? ',["' : '["') + r[0] + '","' + r[1] + '",' + DIGITS[r[2]] + ',' + DIGITS[r[3]] + ']'
  }
  return text + ']'
}

function insideOf(fences: Fence[]): Fence[] {
  return fences.sort(bySortKey)
}

/**
 * `insideOf` `inside`, whose first `stayed` are the geofences of `before` (in answer order) still
 * entered and the rest new entries: each entry placed by a binary search. A full sort compared ~25
 * pairs of keys, each a string read from memory (~2.4 µs a track at 100k geofences); this compares
 * ~3 per entry.
 */
function insideAfter(before: readonly Fence[], inside: readonly Fence[], stayed: number): Fence[] {
  const fences = stayed === before.length ? before.slice() : before.filter((f) => {
    const at = inside.indexOf(f)
    return at >= 0 && at < stayed
  })
  for (let i = stayed; i < inside.length; i++) {
    const fence = inside[i]
    let lo = 0, hi = fences.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (bySortKey(fences[mid], fence) < 0) lo = mid + 1
      else hi = mid
    }
    fences.splice(lo, 0, fence)
  }
  return fences
}

/**
 * How many users' presence a process keeps (LRU); a user past it is parsed again. A user inside ~9
 * geofences costs ~2 KB here: its presence text and rows.
 */
const CACHE_USERS = 100_000

class PresenceCache {
  private byUser = new Map<string, Parsed>()

  get(user: string, text: string): Parsed | undefined {
    const entry = this.byUser.get(user)
    return entry && entry.text === text ? entry : undefined
  }

  set(user: string, entry: Parsed): void {
    this.byUser.delete(user)
    this.byUser.set(user, entry)
    if (this.byUser.size > CACHE_USERS) this.byUser.delete(this.byUser.keys().next().value!)
  }
}

const caches = new WeakMap<Store, PresenceCache>()
const cacheOf = (store: Store) => caches.get(store) ?? caches.set(store, new PresenceCache()).get(store)!

const byFence = (a: {fence: Fence}, b: {fence: Fence}) => bySortKey(a.fence, b.fence)

/** Whether the geofence may generate an entry for this fix (userIds, ip, disableAfter or deleteAfter). */
function admits(fence: Fence, fix: Fix): boolean {
  if (!fence.limited) return true
  if (!inForceAt(fence, fix.at.getTime())) return false
  if (fence.userIds && !(fix.userId && fence.userIds.has(fix.userId))) return false
  if (fence.ips && !ipMatches(fence.ips, fix.ip)) return false
  return true
}

const operating = (fence: Fence, at: Date) => (fence.hours ? isOperating(fence.hours, at) : true)

/**
 * Moves one user's geofence presence for a fix, inside the caller's write: from the presence the
 * user row holds (`stored`, read in this write, so whichever process or worker handles the next
 * fix sees this one's outcome), decides exits, entries and dwells (DECISIONS;
 * docs/api/tracking.md). Returns the transitions in order (exits, entries, dwells; each sorted by
 * tag, externalId, id), the geofences the user is now inside, and the presence the caller writes
 * into the user row, the one place presence is stored. `generate: false` (fraud block) changes
 * nothing.
 */
export function movePresence(tx: Tx, live: boolean, userRef: string, fix: Fix, settings: Settings, generate: boolean, stored: string | null): Moved {
  const {store} = tx
  const engine = geofenceEngine(store)
  const cache = cacheOf(store)
  let entry = stored === null ? undefined : cache.get(userRef, stored)
  const rows: readonly PresenceRow[] = entry?.rows ?? (stored === null ? [] : JSON.parse(stored))
  const generation = engine.generation()
  if (stored !== null && entry?.generation !== generation) {
    entry = {text: stored, rows, fences: rows.map((r) => engine.get(live, r[0])), generation}
    cache.set(userRef, entry)
  }
  const fences = entry?.fences ?? []
  const minConfidence = settings['geofences.minConfidence']
  const bufferExits = settings['geofences.bufferExits']
  const atMs = fix.at.getTime()
  const exits: GeofenceTransition[] = []
  const entries: GeofenceTransition[] = []
  const dwells: GeofenceTransition[] = []
  const inside: Fence[] = []
  // the rows still inside (dwells marked), in row order: `inside` holds their geofences, then the
  // entries'. Kept by index where Sets of ids and fences hashed each row (~1.5 µs a track at 100k)
  const kept: PresenceRow[] = []
  let gone = 0
  // searched first: the search touches each candidate's geofence and shape side by side, so the
  // rows' geofences, candidates too while the user stays inside them, are then read from cache.
  // Without buffer entries only geofences holding the point itself may be entered: their bboxes
  // hold it, whatever the accuracy (a huge one would otherwise make every geofence a candidate)
  const buffer = settings['geofences.bufferEntries']
  const near = engine.near(live, fix.lng, fix.lat, buffer ? fix.accuracy : 0)

  for (let i = 0; i < rows.length; i++) {
    const row = rows[i], fence = fences[i]
    // disabled, deleted or past disableAfter or deleteAfter: the presence ends without an event (it generates none)
    if (!fence || (fence.limited && !inForceAt(fence, atMs))) {
      gone++
      continue
    }
    // a centre still inside decides alone: the disc's share (256 samples of a grown polygon, ~10 µs)
    // is only worked out for the few fixes that may exit. Buffer exits need the whole disc outside,
    // measured as the centre's distance: samples of a disc much wider than a polygon can all miss it
    const centreOut = shareInside(fence, fix.lng, fix.lat, 0, EXIT_MARGIN) === 0
    const confidence = !centreOut ? 0 : bufferExits ? 3 : confidenceOf(1 - shareInside(fence, fix.lng, fix.lat, fix.accuracy, EXIT_MARGIN))
    const exit = centreOut && (bufferExits ? distanceTo(fence, fix.lng, fix.lat) > fix.accuracy + EXIT_MARGIN : confidence >= minConfidence)
    if (exit) {
      gone++
      const duration = Math.round((atMs - Date.parse(row[1])) / 600) / 100
      exits.push({type: 'user.exited_geofence', fence, confidence, duration: Math.max(0, duration)})
      continue
    }
    inside.push(fence)
    const threshold = fence.dwellThreshold
    if (settings['events.dwell'] && threshold !== null && row[2] === 0 && atMs - Date.parse(row[1]) > threshold * 60_000
      && (!settings['geofences.operatingHoursOnly'] || operating(fence, fix.at))) {
      dwells.push({type: 'user.dwelled_in_geofence', fence, confidence: row[3]})
      kept.push([row[0], row[1], 1, row[3]])
    } else {
      kept.push(row)
    }
  }

  const stopRequired = settings['geofences.stopDetection']
  const moving = !fix.stopped && !fix.foreground
  for (const fence of near) {
    // the rows' geofences by identity: a scan of a dozen pointers, where a Set hashed each (~2 µs a track at 100k)
    if (fences.includes(fence) || !admits(fence, fix)) continue
    if (moving && (fence.stopDetection ?? stopRequired)) continue
    if (settings['geofences.operatingHoursOnly'] && !operating(fence, fix.at)) continue
    // without buffer entries the point itself must be inside: a cheap test that spares the share
    if (!buffer && shareInside(fence, fix.lng, fix.lat, 0) !== 1) continue
    const confidence = confidenceOf(shareInside(fence, fix.lng, fix.lat, fix.accuracy))
    const enter = buffer ? confidence >= 1 : confidence >= minConfidence
    if (enter) entries.push({type: 'user.entered_geofence', fence, confidence})
  }
  if (inside.length + entries.length > MAX_INSIDE) strongest(entries, MAX_INSIDE - inside.length)
  const stayed = inside.length
  for (const {fence} of entries) inside.push(fence)

  if (!generate) {
    // the rows' geofences as they are: in answer order already when a fix before needed them
    const still = entry?.inside ?? insideOf(fences.filter((f): f is Fence => f !== undefined))
    return {transitions: [], inside: still, insideText: summariesText(still), presence: stored}
  }
  // with nothing gone and nothing entered, the user is inside exactly the rows' geofences
  const same = !gone && !entries.length
  const before = entry?.inside
  const sorted = same && before ? before
    : before ? insideAfter(before, inside, stayed) : insideOf(inside.slice())
  if (same && entry) entry.inside = sorted
  let presence = stored
  if (gone || entries.length || dwells.length) {
    const atIso = fix.at.toISOString()
    for (const {fence, confidence} of entries) kept.push([fence.id, atIso, 0, confidence])
    presence = kept.length ? presenceText(kept) : null
    if (presence !== null) cache.set(userRef, {text: presence, rows: kept, fences: inside, generation, inside: sorted})
  }
  return {transitions: [...exits.sort(byFence), ...entries.sort(byFence), ...dwells.sort(byFence)], inside: sorted, insideText: summariesText(sorted), presence}
}

const stronger = (a: GeofenceTransition, b: GeofenceTransition) => b.confidence - a.confidence || bySortKey(a.fence, b.fence)

/**
 * Keeps in `entries` the `room` of highest confidence (ties by tag, externalId, _id), strongest
 * first. One pass keeping the best `room` in order: sorting every candidate held the server 0.8–1.6 s
 * for the 100,000 a buffer entry with a 20,000 km accuracy finds at 100k geofences.
 */
function strongest(entries: GeofenceTransition[], room: number): void {
  if (room <= 0) {
    entries.length = 0
    return
  }
  const kept = entries.slice(0, room).sort(stronger)
  for (let i = room; i < entries.length; i++) {
    const e = entries[i]
    if (stronger(e, kept[room - 1]) >= 0) continue
    let j = room - 1
    for (; j > 0 && stronger(e, kept[j - 1]) < 0; j--) kept[j] = kept[j - 1]
    kept[j] = e
  }
  entries.length = 0
  entries.push(...kept)
}

/** `currentlyOperating` for geofence events: present only when the geofence has operating hours. */
export function operatingField(fence: Fence, at: Date): {currentlyOperating?: boolean} {
  return fence.hours ? {currentlyOperating: isOperating(fence.hours, at)} : {}
}
