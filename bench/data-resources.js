// bench/data-resources: users, trips, beacons and events over HTTP with 100,000 of each stored
// (two events in three a geofence entry whose user is inside 9 geofences, stored as track stores it).
// Get and list-of-100 latency at low concurrency, create/upsert throughput at high concurrency,
// against GET /health on the same server in the same run. The server runs in a child process so
// the load generator never shares its thread. The targets are the data-API ones
// (get p50 ≤ 2 ms, list of 100 p50 ≤ 10 ms, ≥ 1,000 writes/s) applied to these resources.
// Also the users inside a geofence (1 user in 1,000 inside it): presence is stored only in the user
// row, so a page walks every user; measured alone and for what it does to GET /health beside it.
import {fork} from 'node:child_process'
import {mkdtempSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {loadConfig} from '../dist/config/index.js'
import {partOf} from '../dist/events/parts.js'
import {geofenceInputSchema} from '../dist/geofences/input.js'
import {insertGeofence} from '../dist/geofences/store.js'
import {createLogger} from '../dist/log.js'
import {createKey} from '../dist/project/keys.js'
import {newId} from '../dist/store/ids.js'
import {write} from '../dist/store/write.js'
import {openSystem, serve} from '../dist/system.js'
import {load, peakRss, report, stopWhenAsked} from './harness.js'

const COUNT = Number(process.env.BENCH_ROWS ?? 100_000)
const seconds = Number(process.env.BENCH_SECONDS ?? 3)
// latency is measured one request at a time, as in bench/data-api (more connections on one thread measure the queue)
const LATENCY = 1
const THROUGHPUT = 32

if (process.env.BENCH_ROLE === 'server') {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-bench-resources-'))
  const config = loadConfig({env: {}, overrides: {dataDir, port: 0, logLevel: 'silent', rateLimits: {data: 1e9}}})
  const system = await openSystem(config, {log: createLogger('silent')})
  const {store} = system
  const {key: sk} = createKey(store, 'secret', 'test')
  const {key: pk} = createKey(store, 'publishable', 'test')

  // Seed with prepared statements in one transaction; stamps one millisecond apart in the past.
  const seedStart = performance.now()
  const base = Date.now() - COUNT * 10
  const stamp = (i, k) => new Date(base + i * 10 + k).toISOString()
  const random = (min, max) => min + Math.random() * (max - min)
  const userIds = []
  const userRefs = []
  const stamps = {users: [], trips: [], beacons: [], events: []}
  const STATUSES = ['pending', 'started', 'approaching', 'arrived', 'completed', 'canceled', 'expired']
  const db = store.sqlite
  const inside = write(store, (tx) => insertGeofence(tx, false, {...geofenceInputSchema.parse({description: 'Depot', type: 'circle', coordinates: [7.42, 43.73], radius: 300}), tag: 'bench', externalId: 'inside'}))
  // 1 user in 1,000 inside the bench geofence, 1 in 10 inside another: the rest have no presence
  const presence = (i, at) => (i % 1000 === 0 ? JSON.stringify([[inside.id, at, 0, 3]]) : i % 10 === 0 ? JSON.stringify([[`other${String(i).padStart(19, '0')}`, at, 0, 3]]) : null)
  write(store, () => {
    const user = db.prepare(`INSERT INTO users (id, live, user_id, device_id, lng, lat, location_accuracy, foreground, stopped, device_type, metadata, context, presence, created_at, updated_at)
      VALUES (?, 0, ?, ?, ?, ?, 10, 1, 0, 'iOS', '{"plan":"pro"}', '{}', ?, ?, ?)`)
    const trip = db.prepare(`INSERT INTO trips (id, live, external_id, user_ref, user_id, mode, destination_geofence_tag, destination_geofence_external_id,
      destination_lng, destination_lat, metadata, status, delayed, created_at, updated_at)
      VALUES (?, 0, ?, ?, ?, 'car', 'store', ?, 7.42, 43.73, '{"items":3}', ?, 0, ?, ?)`)
    const location = db.prepare('INSERT INTO trip_locations (trip_id, lng, lat, updated_at) VALUES (?, ?, ?, ?)')
    const beacon = db.prepare(`INSERT INTO beacons (id, live, tag, external_id, description, type, uuid, major, minor, lng, lat, enabled, metadata, created_at, updated_at)
      VALUES (?, 0, 'bench', ?, ?, 'ibeacon', 'B9407F30-F5F8-466E-AFF9-25556B57FE6D', ?, '1', ?, ?, 1, NULL, ?, ?)`)
    const event = db.prepare(`INSERT INTO events (id, live, type, user_ref, user_id, payload, created_at, actual_created_at, parts, parts_at) VALUES (?, 0, ?, ?, ?, ?, ?, ?, ?, ?)`)
    // geofence events as track stores them: the user inside 9 of 2,000 geofences, whose summaries are event parts
    const part = db.prepare('INSERT INTO event_parts (key, json) VALUES (?, ?)')
    const summaries = Array.from({length: 2000}, (_, g) => partOf(JSON.stringify({_id: newId(), tag: 'bench', externalId: String(g), description: `Shop ${g}`,
      type: 'circle', geometryCenter: {type: 'Point', coordinates: [7.42, 43.73]}, geometryRadius: 100, metadata: {}})))
    for (const p of summaries) part.run(p.key, p.json)
    const geofenceEvent = (uid, i, at) => {
      const lead = `{"user":{"_id":"${uid}","live":false,"userId":"user-${i}","deviceId":"device-${i}","createdAt":"${at}","updatedAt":"${at}","geofences":[`
      const inside = Array.from({length: 9}, (_, k) => summaries[(i * 7 + k * 211) % summaries.length])
      return {payload: `${lead}]},"geofence":${inside[0].json},"confidence":3}`, parts: inside.map((p) => p.key).join(','), at: lead.length}
    }
    for (let i = 0; i < COUNT; i++) {
      const uid = newId()
      const lng = random(7.40, 7.44)
      const lat = random(43.72, 43.76)
      user.run(uid, `user-${i}`, `device-${i}`, lng, lat, presence(i, stamp(i, 0)), stamp(i, 0), stamp(i, 0))
      userIds.push(`user-${i}`)
      if (i % 100 === 0) userRefs.push(uid)
      const tid = newId()
      trip.run(tid, `order-${i}`, uid, `user-${i}`, String(i % 500), STATUSES[i % STATUSES.length], stamp(i, 1), stamp(i, 1))
      for (let k = 0; k < 3; k++) location.run(tid, lng + k / 1000, lat, stamp(i, 1))
      beacon.run(newId(), `b-${i}`, `Beacon ${i}`, String(i % 65536), lng, lat, stamp(i, 2), stamp(i, 2))
      if (i % 3) {
        const e = geofenceEvent(uid, i, stamp(i, 3))
        event.run(newId(), 'user.entered_geofence', uid, `user-${i}`, e.payload, stamp(i, 3), stamp(i, 3), e.parts, e.at)
      } else event.run(newId(), 'conversion', uid, `user-${i}`, JSON.stringify({name: 'checkout', revenue: 10}), stamp(i, 3), stamp(i, 3), null, null)
      for (const [name, k] of [['users', 0], ['trips', 1], ['beacons', 2], ['events', 3]]) stamps[name].push(stamp(i, k))
    }
  })
  const seedS = (performance.now() - seedStart) / 1000

  const serving = await serve(system, {jobs: false})
  const server = serving.server
  const memory = peakRss()
  process.send({url: server.url, sk, pk, seedS, userIds, userRefs, stamps})
  stopWhenAsked({serving, system, dataDir, farewell: () => ({peakMb: memory.stop()})})
} else {
  await measure()
}

async function measure() {
  const child = fork(fileURLToPath(import.meta.url), {env: {...process.env, BENCH_ROLE: 'server'}})
  const next = () => new Promise((resolve) => child.once('message', resolve))
  const {url, sk, pk, seedS, userIds, userRefs, stamps} = await next()
  const pick = (list) => list[Math.floor(Math.random() * list.length)]
  const n = () => Math.floor(Math.random() * COUNT)
  let serial = 0
  const get = (path) => ({setupRequest: (req) => ({...req, path: path()})})
  const requests = {
    health: {path: '/health'},
    userGet: get(() => `/v1/users/${pick(userIds)}`),
    userList: get(() => `/v1/users?limit=100&updatedBefore=${pick(stamps.users.slice(100))}`),
    tripGet: get(() => `/v1/trips/order-${n()}`),
    tripList: get(() => `/v1/trips?limit=100&updatedBefore=${pick(stamps.trips.slice(100))}`),
    tripListFiltered: get(() => `/v1/trips?limit=100&status=started,approaching&includeLocations=true&updatedBefore=${pick(stamps.trips.slice(1000))}`),
    beaconGet: get(() => `/v1/beacons/bench/b-${n()}`),
    beaconList: get(() => `/v1/beacons?limit=100&createdBefore=${pick(stamps.beacons.slice(100))}`),
    eventList: get(() => `/v1/events?limit=100&createdBefore=${pick(stamps.events.slice(100))}`),
    // one user's events or trips among 100,000: through the user's index, not a walk of the table
    eventsOfUser: get(() => `/v1/events?limit=100&userId=${pick(userIds)}`),
    eventsOfUserRef: get(() => `/v1/events?limit=100&userId=${pick(userRefs)}`),
    tripsOfUser: get(() => `/v1/trips?limit=100&userId=${pick(userIds)}`),
    tripsNamed: get(() => `/v1/trips?limit=100&externalId=order-${n()},order-${n()}`),
    usersInside: {path: '/v1/geofences/bench/inside/users?limit=100'},
    tripCreate: {method: 'POST', setupRequest: (req) => ({...req, headers: {...req.headers, authorization: pk}, path: '/v1/trips',
      body: JSON.stringify({externalId: `new-${serial++}`, userId: pick(userIds), mode: 'bike', metadata: {items: 2}})})},
    eventCreate: {method: 'POST', setupRequest: (req) => ({...req, headers: {...req.headers, authorization: pk}, path: '/v1/events',
      body: JSON.stringify({name: 'checkout', revenue: 12.5, userId: pick(userIds)})})},
    beaconUpsert: {method: 'PUT', setupRequest: (req) => {
      const i = Math.floor(Math.random() * COUNT * 1.1)
      return {...req, path: `/v1/beacons/bench/b-${i}`, body: JSON.stringify({description: `Beacon ${i}`, type: 'ibeacon', uuid: 'B9407F30-F5F8-466E-AFF9-25556B57FE6D', major: '1', minor: '2', coordinates: [7.42, 43.73]})}
    }},
  }

  const run = (request, connections, s = seconds) => load({url: url, headers: {authorization: sk, 'content-type': 'application/json'}, seconds: s, connections, requests: [request]})
  for (const name of ['health', 'userGet', 'userList', 'tripGet', 'tripList']) await run(requests[name], LATENCY, 1) // warm up

  const r = {}
  for (const name of ['health', 'userGet', 'userList', 'tripGet', 'tripList', 'tripListFiltered', 'beaconGet', 'beaconList', 'eventList', 'eventsOfUser', 'eventsOfUserRef', 'tripsOfUser', 'tripsNamed']) r[name] = await run(requests[name], LATENCY)
  r.usersInside = await run(requests.usersInside, LATENCY)
  // a page of users inside a geofence walks them all, 1,000 a statement: what it leaves other clients
  ;[r.healthBeside] = await Promise.all([run(requests.health, LATENCY), run(requests.usersInside, 4)])
  r.healthBusy = await run(requests.health, THROUGHPUT)
  for (const name of ['tripCreate', 'eventCreate', 'beaconUpsert']) r[name] = await run(requests[name], THROUGHPUT)
  child.send('stop')
  const {peakMb} = await next()

  const rows = [
    {name: `GET /health (${LATENCY} conn) req/s`, value: r.health.rps},
    {name: 'GET /health p50 / p99', value: `${r.health.p50} / ${r.health.p99}`, unit: 'ms'},
  ]
  const latency = (label, x, target) => {
    rows.push({name: `${label} p50`, value: x.p50, unit: 'ms', target: `≤ ${target} ms`, ok: x.p50 <= target})
    rows.push({name: `${label} p99 · req/s · vs health`, value: `${x.p99} · ${Math.round(x.rps)} · ${((x.rps / r.health.rps) * 100).toFixed(0)} %`})
  }
  latency('user get by userId', r.userGet, 2)
  latency('users list of 100', r.userList, 10)
  latency('trip get by externalId', r.tripGet, 2)
  latency('trips list of 100', r.tripList, 10)
  latency('trips list, status+locations', r.tripListFiltered, 10)
  latency('beacon get by tag/externalId', r.beaconGet, 2)
  latency('beacons list of 100', r.beaconList, 10)
  latency('events list of 100', r.eventList, 10)
  latency('events of one user by userId', r.eventsOfUser, 10)
  latency('events of one user by _id', r.eventsOfUserRef, 10)
  latency('trips of one user by userId', r.tripsOfUser, 10)
  latency('trips list by 2 externalIds', r.tripsNamed, 10)
  rows.push({name: `users inside a geofence (${(COUNT / 1000).toLocaleString('en-US')} of ${COUNT.toLocaleString('en-US')}) p50 / p99`, value: `${r.usersInside.p50} / ${r.usersInside.p99}`, unit: 'ms'})
  rows.push({name: 'GET /health beside 4 of those p50 / p99', value: `${r.healthBeside.p50} / ${r.healthBeside.p99}`, unit: 'ms'})
  rows.push({name: `GET /health (${THROUGHPUT} conn) req/s`, value: r.healthBusy.rps})
  const writes = (label, x) => {
    rows.push({name: `${label} req/s`, value: x.rps, target: '≥ 1,000/s', ok: x.rps >= 1000})
    rows.push({name: `${label} p50 / p99 · vs health`, value: `${x.p50} / ${x.p99} · ${((x.rps / r.healthBusy.rps) * 100).toFixed(0)} %`, unit: 'ms'})
  }
  writes('POST /v1/trips', r.tripCreate)
  writes('POST /v1/events', r.eventCreate)
  writes('PUT /v1/beacons/:tag/:ext', r.beaconUpsert)
  rows.push({name: 'peak RSS of the server', value: peakMb, unit: 'MB'})

  report(`bench/data-resources — ${COUNT.toLocaleString('en-US')} each of users, trips (3 locations each), beacons, events (seeded in ${seedS.toFixed(1)} s), ${seconds} s per run, loopback`, rows)
}
