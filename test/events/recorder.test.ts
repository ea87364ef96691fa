import {beforeEach, describe, expect, it} from 'vitest'
import {eventJson, eventJsonText} from '../../src/events/json.js'
import {recordEvents} from '../../src/events/recorder.js'
import {setSetting} from '../../src/project/settings.js'
import type {Store} from '../../src/store/db.js'
import {write} from '../../src/store/write.js'
import {addWebhook, removeWebhook, webhooksFor} from '../../src/webhooks/registry.js'
import {freshStore} from '../helpers.js'

const fresh = freshStore()
let store: Store
beforeEach(() => {
  store = fresh.store
})

const entered = {type: 'user.entered_geofence', userId: 'u1', body: {geofence: {tag: 'store'}}}
const exited = {type: 'user.exited_geofence', userId: 'u1', body: {duration: 3}}
const outbox = () => store.sqlite.prepare('SELECT webhook_id, event_id, live, status FROM webhook_outbox ORDER BY id').all()
const events = () => store.sqlite.prepare('SELECT id, type FROM events ORDER BY rowid').all()

describe('recordEvents: the one event recorder', () => {
  it('writes each event and one pending delivery per webhook of its environment that wants it', () => {
    const all = addWebhook(store, false, {url: 'http://127.0.0.1:9/all'}).webhook
    const exits = addWebhook(store, false, {url: 'http://127.0.0.1:9/exits', types: ['user.exited_geofence']}).webhook
    addWebhook(store, true, {url: 'http://127.0.0.1:9/live'})
    const [a, b] = write(store, (tx) => recordEvents(tx, false, [entered, exited]))
    expect(events()).toEqual([{id: a.id, type: 'user.entered_geofence'}, {id: b.id, type: 'user.exited_geofence'}])
    expect(outbox()).toEqual([
      {webhook_id: all.id, event_id: a.id, live: 0, status: 'pending'},
      {webhook_id: all.id, event_id: b.id, live: 0, status: 'pending'},
      {webhook_id: exits.id, event_id: b.id, live: 0, status: 'pending'},
    ])
  })

  it('stores nothing of an event type switched off in events.types, and owes no delivery for it', async () => {
    addWebhook(store, false, {url: 'http://127.0.0.1:9/all'})
    await setSetting(store, false, 'events.types', ['user.exited_geofence'])
    const rows = write(store, (tx) => recordEvents(tx, false, [entered, exited]))
    expect(rows.map((r) => r.type)).toEqual(['user.exited_geofence'])
    expect(events().map((e: any) => e.type)).toEqual(['user.exited_geofence'])
    expect(outbox()).toHaveLength(1)
    // a conversion a client logs is stored whatever events.types says
    write(store, (tx) => recordEvents(tx, false, [{type: 'conversion', body: {name: 'checkout'}}], {logged: true}))
    expect(events().map((e: any) => e.type)).toEqual(['user.exited_geofence', 'conversion'])
  })

  it('commits events and deliveries with the caller’s write or not at all', () => {
    addWebhook(store, false, {url: 'http://127.0.0.1:9/all'})
    expect(() => write(store, (tx) => {
      recordEvents(tx, false, [entered])
      throw new Error('the track failed after its events')
    })).toThrow()
    expect(events()).toEqual([])
    expect(outbox()).toEqual([])
  })

  it('follows webhooks added and removed, also by another connection', async () => {
    const {webhook} = addWebhook(store, false, {url: 'http://127.0.0.1:9/a'})
    expect(webhooksFor(store, false, 'user.entered_geofence').map((w) => w.id)).toEqual([webhook.id])
    // another process disabling it: a plain statement on a second connection
    const Database = store.sqlite.constructor as typeof import('better-sqlite3')
    const other = new Database(store.file)
    other.prepare('UPDATE webhooks SET enabled = 0').run()
    other.close()
    // another process's commit shows within a millisecond
    await new Promise((resolve) => setTimeout(resolve, 2))
    expect(webhooksFor(store, false, 'user.entered_geofence')).toEqual([])
    expect(removeWebhook(store, webhook.id)).toBe(true)
    expect(removeWebhook(store, webhook.id)).toBe(false)
  })
})

describe('recordEvents in bulk', () => {
  it('stores thousands of events and deliveries in one write (SQLite binds at most 32,766 values a statement)', () => {
    for (let i = 0; i < 3; i++) addWebhook(store, false, {url: `http://127.0.0.1:9/${i}`})
    const many = Array.from({length: 5000}, (_, i) => ({type: 'user.entered_geofence', userId: `u${i}`, body: {n: i}}))
    const rows = write(store, (tx) => recordEvents(tx, false, many))
    expect(rows).toHaveLength(5000)
    expect(store.sqlite.prepare('SELECT count(*) FROM events').pluck().get()).toBe(5000)
    expect(store.sqlite.prepare('SELECT count(*) FROM webhook_outbox').pluck().get()).toBe(15_000)
  })

  it('stores a producer\'s body text as given, and eventJsonText renders each row exactly as eventJson', () => {
    const body = {user: {_id: 'u', note: 'say "hi"\u2028'}, location: {type: 'Point', coordinates: [7.4, 43.7]}}
    const rows = write(store, (tx) => recordEvents(tx, false, [
      {type: 'user.entered_geofence', body, bodyText: JSON.stringify(body)},
      {type: 'conversion', body: {}, createdAt: '2024-05-01T10:00:00.000Z'},
    ]))
    expect(rows[0].payload).toBe(JSON.stringify(body))
    for (const row of rows) expect(JSON.parse(eventJsonText(row))).toEqual(eventJson(row))
    expect(Object.keys(JSON.parse(eventJsonText(rows[0])))).toEqual(Object.keys(eventJson(rows[0])))
  })
})
