import {CompiledQuery} from 'kysely'
import {beaconsNow} from '../beacons/store.js'
import type {EventRow} from '../events/json.js'
import {type EventParts, eventParts} from '../events/parts.js'
import {type NewEvent, recordEvents} from '../events/recorder.js'
import {summaryPart} from '../geofences/fence.js'
import type {MapData} from '../map/index.js'
import {getSettings} from '../project/settings.js'
import {REGION_FIELDS, type Region, regionJson, regionsAt} from '../regions/index.js'
import type {Store} from '../store/db.js'
import {newId} from '../store/ids.js'
import {type Tx, writeGrouped} from '../store/write.js'
import {tripJson} from '../trips/json.js'
import {ACTIVE_STATUSES, type TripStatus} from '../trips/status.js'
import {PLACE_ENTERED_AT, type UserRow, userJsonAround} from '../users/json.js'
import {NEWEST_BY_DEVICE, NEWEST_BY_USER_ID, NEWEST_LOGGED_OUT_BY_DEVICE, USER_COLUMNS} from '../users/store.js'
import {rangedBeacons} from './beacons.js'
import {fraudOf} from './fraud.js'
import {type ChainVisits, passesFilters, type PlaceHit, placesAt, withVisit} from './places.js'
import {EARLIEST_UPDATE, type TrackInput} from './input.js'
import {type Fix, movePresence, operatingField} from './presence.js'
import {type EtaSource, moveTrip} from './trips.js'

/** What a track needs of the running system. */
export interface TrackDeps {
  store: Store
  /** Imported map regions, for places. */
  map?: MapData
  /** Trip ETAs from the routing engine where it answers; straight line otherwise. */
  routing?: EtaSource
}

export interface TrackResult {
  /** The events stored, in order (`eventJson`/`eventJsonText` shape them). */
  events: EventRow[]
  /** The user as JSON text, as the answer and every event embed it. */
  userText: string
}

/**
 * `POST /v1/track`: one fix of one device. Everything — the user, presence, trip, events and their
 * webhook deliveries — is decided and written inside one group-committed transaction that reads
 * the state it moves, so tracks of one device never interleave (across workers and processes the
 * store's write lock orders them) and the answer comes only after the commit.
 */
export function track(deps: TrackDeps, live: boolean, input: TrackInput, ip: string): Promise<TrackResult> {
  // no savepoint: a track's input is validated before, so it throws only on a fault; but one with
  // tripOptions can be refused on the trip it names, read in the write (src/tracking/trips.ts)
  return writeGrouped(deps.store, (tx) => trackIn(tx, deps, live, input, ip, new Date()), {savepoint: !!input.tripOptions})
}

const env = (live: boolean) => (live ? 1 : 0)

// the user row's SQL written once (the query builder compiled 20 columns on every track)
const USER_CHANGES = USER_COLUMNS.filter((c) => c !== 'id' && c !== 'live' && c !== 'created_at')
// what every fix changes; SQLite rewrites each index holding a column that is SET, changed or not,
// so a fix that leaves the ids and device alone does not SET them (2 pages a track fewer)
const FIX_CHANGES = ['lng', 'lat', 'location_accuracy', 'foreground', 'stopped', 'ip', 'context', 'presence', 'updated_at'] as const satisfies ReadonlyArray<keyof UserRow>
const IDENTITY = USER_CHANGES.filter((c) => !(FIX_CHANGES as readonly string[]).includes(c))
const INSERT_USER = `INSERT INTO users (${USER_COLUMNS.join(', ')}) VALUES (${USER_COLUMNS.map(() => '?').join(', ')})`
const UPDATE_USER = `UPDATE users SET ${USER_CHANGES.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`
const UPDATE_FIX = `UPDATE users SET ${FIX_CHANGES.map((c) => `${c} = ?`).join(', ')} WHERE id = ?`

/** The user this track updates: by `userId` (adopting the device's logged-out user), else by `deviceId`. */
export function trackedUser(tx: Tx, live: boolean, input: TrackInput): UserRow | undefined {
  const get = (sql: string, value: string) => tx.get<UserRow>(CompiledQuery.raw(sql, [env(live), value]))
  if (input.userId) return get(NEWEST_BY_USER_ID, input.userId) ?? get(NEWEST_LOGGED_OUT_BY_DEVICE, input.deviceId)
  return get(NEWEST_BY_DEVICE, input.deviceId)
}

export function trackIn(tx: Tx, deps: TrackDeps, live: boolean, input: TrackInput, ip: string, now: Date): TrackResult {
  const settings = getSettings(tx.store, live)
  const before = trackedUser(tx, live, input)
  const context = (before?.context ? JSON.parse(before.context) : {}) as Record<string, unknown>
  // DECISIONS: an `updatedAt` absent or older than the last update is server time; one from the
  // future, or before EARLIEST_UPDATE (a clock never set), is now
  let at = now
  if (input.updatedAt && input.updatedAt >= EARLIEST_UPDATE) {
    const given = new Date(input.updatedAt)
    if ((!before || input.updatedAt > before.updated_at) && given <= now) at = given
  }
  const atIso = at.toISOString()
  const accuracy = input.accuracy ?? 0
  const lng = input.longitude, lat = input.latitude

  const fraud = settings['fraud.enabled']
    ? fraudOf({
        mocked: input.mocked ?? false, compromised: input.compromised ?? false, sharing: input.sharing ?? false,
        accuracy, ip, lng, lat, at,
        previous: before && before.lng !== null && before.lat !== null ? {lng: before.lng, lat: before.lat, at: new Date(before.updated_at)} : undefined,
        before: context.fraud as Record<string, unknown> | undefined,
      }, settings)
    : undefined
  const generate = !fraud?.blocked

  const row: UserRow = {
    id: before?.id ?? newId(),
    live: env(live),
    user_id: input.userId ?? before?.user_id ?? null,
    device_id: input.deviceId,
    install_id: input.installId ?? before?.install_id ?? null,
    description: input.description === undefined ? (before?.description ?? null) : input.description,
    metadata: input.metadata === undefined ? (before?.metadata ?? null) : input.metadata ? JSON.stringify(input.metadata) : null,
    lng, lat,
    location_accuracy: input.accuracy ?? null,
    foreground: input.foreground ? 1 : 0,
    stopped: input.stopped ? 1 : 0,
    device_type: input.deviceType ?? before?.device_type ?? null,
    device_os: input.deviceOS ?? before?.device_os ?? null,
    device_make: input.deviceMake ?? before?.device_make ?? null,
    device_model: input.deviceModel ?? before?.device_model ?? null,
    ip,
    context: null,
    presence: null,
    created_at: before?.created_at ?? atIso,
    updated_at: atIso,
  }
  const fix: Fix = {lng, lat, accuracy, stopped: !!input.stopped, foreground: !!input.foreground, userId: row.user_id, ip, at}
  const {transitions, inside, insideText, presence} = movePresence(tx, live, row.id, fix, settings, generate, before?.presence ?? null)
  row.presence = presence

  // user.geofences are not repeated here: users/json.ts renders them from users.presence
  const next: Record<string, unknown> = {segments: [], topChains: context.topChains ?? []}
  const regionEvents: Array<{type: string; region: Region}> = []
  if (settings['regions.enabled']) {
    const regions = regionsAt(lng, lat, deps.map)
    for (const [type, field] of Object.entries(REGION_FIELDS) as Array<[Region['type'], string]>) {
      const region = regions.find((r) => r.type === type)
      if (region) next[field] = regionJson(region)
      const was = context[field] as {code: string; name: string; flag?: string} | undefined
      if (was?.code === region?.code) continue
      if (was) regionEvents.push({type: `user.exited_region_${type}`, region: {type, ...was}})
      if (region) regionEvents.push({type: `user.entered_region_${type}`, region})
    }
  }
  const beaconEvents: Array<{type: string; beacon: Record<string, unknown>}> = []
  // the user's beacons as they are now: one disabled or deleted since is dropped silently, with no
  // exit, as a geofence is (presence.ts); no query for a user without beacons, nor when they are
  // not kept (beacons off, and the user not blocked)
  if (context.beacons && (settings['beacons.enabled'] || !generate)) context.beacons = beaconsNow(tx.store, live, context.beacons as Array<{_id: string}>)
  if (settings['beacons.enabled'] && input.beacons) {
    const ranged = rangedBeacons(tx, live, input.beacons)
    const was = (context.beacons as Array<Record<string, unknown>> | undefined) ?? []
    const ids = new Set(ranged.map((b) => b._id))
    const wasIds = new Set(was.map((b) => b._id))
    for (const b of was) if (!ids.has(b._id)) beaconEvents.push({type: 'user.exited_beacon', beacon: b})
    for (const b of ranged) if (!wasIds.has(b._id)) beaconEvents.push({type: 'user.entered_beacon', beacon: b})
    next.beacons = ranged
  } else if (settings['beacons.enabled']) {
    next.beacons = context.beacons ?? []
  }
  const placeEvents: Array<{type: string; place: Record<string, unknown>; alternatePlaces?: Array<Record<string, unknown>>; duration?: number}> = []
  if (settings['places.enabled'] && deps.map) {
    const hits = placesAt(deps.map, lng, lat, settings)
    const was = context.place as (Record<string, unknown> & {_filtered?: boolean}) | null | undefined
    const enteredAt = context[PLACE_ENTERED_AT] as string | undefined
    let place: PlaceHit | undefined = was ? hits.find((h) => h.json._id === was._id) : undefined
    if (place && enteredAt) next[PLACE_ENTERED_AT] = enteredAt
    if (was && !place) {
      if (passesFilters({category: (was.categories as string[])[0], chainSlug: (was.chain as {slug?: string} | undefined)?.slug ?? null}, settings)) {
        // as a geofence exit's: minutes since the entry (a place entered before loc kept the time has none)
        const duration = enteredAt ? {duration: Math.max(0, Math.round((at.getTime() - Date.parse(enteredAt)) / 600) / 100)} : {}
        placeEvents.push({type: 'user.exited_place', place: was, ...duration})
      }
    }
    // DECISIONS: a place entry needs a stopped or foreground update
    if (!place && hits.length && (input.stopped || input.foreground)) {
      next[PLACE_ENTERED_AT] = atIso
      place = hits[0]
      if (passesFilters(place, settings)) placeEvents.push({type: 'user.entered_place', place: place.json, alternatePlaces: hits.slice(1, 4).map((h) => h.json)})
      const chain = place.json.chain as {name: string; slug: string; externalId?: string} | undefined
      if (chain) next.topChains = withVisit(next.topChains as ChainVisits[], chain)
    }
    next.place = place?.json ?? null
  }
  if (fraud) next.fraud = fraud
  if (!generate) {
    // a blocked user's state stays as it was: only location and the fraud verdict change
    for (const key of [...Object.values(REGION_FIELDS), 'beacons', 'place', PLACE_ENTERED_AT, 'topChains']) if (key in context) next[key] = context[key]
    regionEvents.length = 0
    beaconEvents.length = 0
    placeEvents.length = 0
  }
  row.context = JSON.stringify(next)
  if (before && IDENTITY.every((c) => row[c] === before[c])) tx.run(CompiledQuery.raw(UPDATE_FIX, [...FIX_CHANGES.map((c) => row[c]), row.id]))
  else if (before) tx.run(CompiledQuery.raw(UPDATE_USER, [...USER_CHANGES.map((c) => row[c]), row.id]))
  else tx.run(CompiledQuery.raw(INSERT_USER, USER_COLUMNS.map((c) => row[c])))

  const entered = transitions.filter((t) => t.type === 'user.entered_geofence').map((t) => t.fence)
  const tripMoves = generate ? moveTrip(tx, live, input.tripOptions, {user: row, fix: {lng, lat, at}, entered, inside, settings, routing: deps.routing}) : {events: []}

  const derived: Record<string, unknown> = {...next}
  const trip = tripMoves.trip && ACTIVE_STATUSES.includes(tripMoves.trip.status as TripStatus) ? tripMoves.trip : undefined
  if (trip) {
    const {user: _u, userId: _id, ...json} = tripJson(trip, row)
    derived.trip = json
  }
  const location = {type: 'Point', coordinates: [lng, lat]}
  const [userBefore, userAfter] = userJsonAround(row, derived)
  const userText = userBefore + insideText + userAfter
  // every event embeds the user, its geofences as parts stored once (events/parts.ts); the body's
  // key order is kept
  let parts: EventParts | undefined
  const base = (type: string, body: Record<string, unknown>): NewEvent => {
    const rest = {location, locationAccuracy: input.accuracy ?? null, ...(input.replayed ? {replayed: true} : {}), ...body}
    parts ??= eventParts(inside.map(summaryPart), '{"user":'.length + userBefore.length, insideText)
    return {type, userRef: row.id, userId: row.user_id, createdAt: atIso, bodyText: `{"user":${userBefore}${userAfter},${JSON.stringify(rest).slice(1)}`, parts}
  }
  const events: NewEvent[] = generate ? [
    ...transitions.map((t) => base(t.type, {
      geofence: t.fence.summary, confidence: t.confidence, ...(t.duration === undefined ? {} : {duration: t.duration}), ...operatingField(t.fence, at),
    })),
    ...tripMoves.events.map((e) => base(e.type, {trip: tripJson(e.trip, row)})),
    ...placeEvents.map(({type, ...body}) => base(type, body)),
    ...regionEvents.map((e) => base(e.type, {region: e.region})),
    ...beaconEvents.map((e) => base(e.type, {beacon: e.beacon})),
  ] : []
  return {events: recordEvents(tx, live, events), userText}
}

