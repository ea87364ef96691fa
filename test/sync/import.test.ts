import {rmSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {loadConfig} from '../../src/config/index.js'
import {createLogger} from '../../src/log.js'
import {expireGeofences} from '../../src/geofences/expiry.js'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {upsertGeofenceByKey} from '../../src/geofences/store.js'
import {importBeacons, importGeofences} from '../../src/sync/import.js'
import {parse} from '../../src/validate.js'
import {openSystem, type System} from '../../src/system.js'
import {tempDir} from '../helpers.js'

let dir: string
let system: System
let n = 0

beforeAll(async () => {
  dir = tempDir('loc-import-')
  system = await openSystem(loadConfig({env: {}, overrides: {dataDir: dir, logLevel: 'silent'}}), {log: createLogger('silent')})
})
afterAll(async () => {
  await system.close()
  rmSync(dir, {recursive: true, force: true})
})

/** Writes `text` to a fresh file and imports it (test environment unless told). */
function csv(text: string): string {
  const file = path.join(dir, `f${n++}.csv`)
  writeFileSync(file, text)
  return file
}
const geofences = (text: string, options: {partial?: boolean; dryRun?: boolean; live?: boolean} = {}) =>
  importGeofences(system, csv(text), {live: false, ...options})
const stored = (tag: string, externalId: string, live = 0) =>
  system.store.sqlite.prepare('SELECT * FROM geofences WHERE live = ? AND tag = ? AND external_id = ?').get(live, tag, externalId) as Record<string, any> | undefined
const count = (tag: string) => (system.store.sqlite.prepare('SELECT count(*) AS n FROM geofences WHERE tag = ?').get(tag) as {n: number}).n

describe('geofence CSV import', () => {
  it('imports every column of the spec', async () => {
    const file = [
      'description,type,tag,externalId,coordinates,radius,mode,enabled,metadata,operatingHours,stopDetection,disableAfter,deleteAfter,userId,userIds,ip,dwellThreshold',
      'Store 1,circle,store,s1,"[7.42,43.73]",100,,true,"{""color"":""red"",""floor"":2}","{""monday"":[[""09:00"",""17:00""]]}",true,2030-01-01T00:00:00Z,2031-01-01T00:00:00.000Z,u1,"u2,u3","10.0.0.0/8",5',
      'Park,polygon,store,p1,"[[7.41,43.73],[7.42,43.73],[7.42,43.74],[7.41,43.73]]",,,false,,,,,,,,,',
    ].join('\r\n')
    const summary = await geofences(file)
    expect(summary).toMatchObject({rows: 2, created: 2, updated: 0, unchanged: 0, failed: 0, written: true, failures: []})
    const s1 = stored('store', 's1')!
    expect(s1).toMatchObject({
      description: 'Store 1', type: 'circle', radius: 100, enabled: 1, stop_detection: 1, user_id: 'u1', user_ids: 'u2,u3', ip: '10.0.0.0/8',
      dwell_threshold: 5, disable_after: '2030-01-01T00:00:00.000Z', delete_after: '2031-01-01T00:00:00.000Z', center_lng: 7.42, center_lat: 43.73,
    })
    expect(JSON.parse(s1.metadata)).toEqual({color: 'red', floor: 2})
    expect(JSON.parse(s1.operating_hours)).toEqual({Mon: [['09:00', '17:00']]})
    const p1 = stored('store', 'p1')!
    expect(p1.enabled).toBe(0)
    expect(JSON.parse(p1.geometry).coordinates[0]).toHaveLength(4)
  })

  it('reads metadata.{key} and operatingHours.{day} columns, a BOM, CRLF and any day-name case', async () => {
    const text = '\uFEFFdescription,type,tag,externalId,coordinates,radius,metadata.color,metadata.size,metadata.open,operatingHours.MON,operatingHours.tuesday,operatingHours.Sun\r\n' +
      'Shop,circle,keyed,k1,"[7.42,43.73]",50,blue,3,true,09:00-17:00,"[[""8:00 am"",""12:00 pm""]]",10:00-12:00;13:00-15:00\r\n' +
      'Shop 2,circle,keyed,k2,"[7.42,43.73]",50,,01234,,,,\r\n'
    const summary = await geofences(text)
    expect(summary).toMatchObject({created: 2, failed: 0})
    const k1 = stored('keyed', 'k1')!
    expect(JSON.parse(k1.metadata)).toEqual({color: 'blue', size: 3, open: true})
    expect(JSON.parse(k1.operating_hours)).toEqual({Mon: [['09:00', '17:00']], Tue: [['08:00', '12:00']], Sun: [['10:00', '12:00'], ['13:00', '15:00']]})
    // leading zeros stay text; empty cells leave a key out
    expect(JSON.parse(stored('keyed', 'k2')!.metadata)).toEqual({size: '01234'})
    expect(stored('keyed', 'k2')!.operating_hours).toBeNull()
  })

  it('refuses combined, unknown, repeated and missing header columns, changing nothing', async () => {
    const header = (columns: string) => geofences(`${columns}\nx,circle,h,1,"[7,43]",50,a\n`)
    expect((await header('description,type,tag,externalId,coordinates,radius,metadata,metadata.color')).failures)
      .toContainEqual({row: 1, column: 'metadata', reason: 'cannot be combined with metadata.{key} columns: use one or the other'})
    expect((await header('description,type,tag,externalId,coordinates,radius,operatingHours,operatingHours.mon')).failures)
      .toContainEqual({row: 1, column: 'operatingHours', reason: 'cannot be combined with operatingHours.{day} columns: use one or the other'})
    expect((await header('description,type,tag,externalId,coordinates,radius,colour')).failures[0]).toMatchObject({row: 1, column: 'colour'})
    expect((await header('description,type,tag,externalId,coordinates,radius,operatingHours.funday')).failures[0]).toMatchObject({row: 1, column: 'operatingHours.funday'})
    expect((await header('description,type,tag,externalId,coordinates,radius,operatingHours.mon,operatingHours.Monday')).failures[0]).toMatchObject({column: 'operatingHours.Monday'})
    expect((await header('description,type,tag,externalId,coordinates,radius,Radius')).failures[0]).toMatchObject({column: 'Radius', reason: 'must appear once in the header'})
    expect((await header('description,type,externalId,coordinates,radius,mode,x')).failures).toContainEqual({row: 1, column: 'tag', reason: 'required column is missing from the header'})
    expect((await header('description,type,tag,externalId,radius,mode,enabled')).failures[0]).toMatchObject({column: 'coordinates'})
    expect(count('h')).toBe(0)
  })

  it('lists every bad row with its column, and an all-or-nothing import changes nothing', async () => {
    const text = [
      'description,type,tag,externalId,coordinates,radius,metadata.color,operatingHours.mon,address',
      'ok,circle,bad,1,"[7.42,43.73]",50,,,',
      ',circle,bad,2,"[7.42,43.73]",50,,,',
      'r,circle,bad,3,"[7.42,43.73]",5,,,',
      'r,square,bad,4,"[7.42,43.73]",50,,,',
      'r,circle,bad,5,"[7.42,43.73]",50,,25:00-26:00,',
      'r,circle,bad,1,"[7.42,43.73]",50,,,',
      'r,circle,bad,6,,50,,,1 Main St',
      'r,polygon,bad,7,"[[7,43],[8,43]]",,,,',
      'r,circle,bad,8,"[7.42,43.73]",50',
      'r,circle,,9,"[7.42,43.73]",50,,,',
    ].join('\n')
    const summary = await geofences(text)
    expect(summary).toMatchObject({rows: 10, failed: 9, written: false, created: 0})
    const byRow = Object.fromEntries(summary.failures.map((f) => [f.row, f]))
    expect(byRow[3]).toEqual({row: 3, column: 'description', reason: 'required'})
    expect(byRow[4]).toEqual({row: 4, column: 'radius', reason: 'range 10 to 10000 (meters)'})
    expect(byRow[5].column).toBe('type')
    expect(byRow[6].column).toBe('operatingHours.mon')
    expect(byRow[7]).toEqual({row: 7, column: 'externalId', reason: 'must be unique within its tag in the file (row 2 has the same tag and externalId)'})
    expect(byRow[8].column).toBe('address')
    expect(byRow[8].reason).toMatch(/geocoder/)
    expect(byRow[9].column).toBe('coordinates')
    expect(byRow[10].reason).toBe('must have 9 cells like the header (has 6)')
    expect(byRow[11]).toEqual({row: 11, column: 'tag', reason: 'required (rows are matched on tag and externalId)'})
    expect(count('bad')).toBe(0)

    const partial = await geofences(text, {partial: true})
    expect(partial).toMatchObject({created: 1, failed: 9, written: true})
    expect(count('bad')).toBe(1)
  })

  it('upserts on tag + externalId: update, disable, metadata change, unchanged; dry run writes nothing', async () => {
    const header = 'description,type,tag,externalId,coordinates,radius,enabled,metadata.color\n'
    expect(await geofences(header + 'A,circle,up,1,"[7.42,43.73]",50,true,red\nB,circle,up,2,"[7.42,43.73]",50,true,red\n')).toMatchObject({created: 2})
    const before = stored('up', '1')!
    expect(await geofences(header + 'A,circle,up,1,"[7.42,43.73]",50,true,red\nB,circle,up,2,"[7.42,43.73]",50,false,green\nC,circle,up,3,"[7.42,43.73]",50,,\n', {dryRun: true}))
      .toMatchObject({created: 1, updated: 1, unchanged: 1, written: false})
    expect(count('up')).toBe(2)
    expect(await geofences(header + 'A,circle,up,1,"[7.42,43.73]",50,true,red\nB,circle,up,2,"[7.42,43.73]",50,false,green\nC,circle,up,3,"[7.42,43.73]",50,,\n'))
      .toMatchObject({created: 1, updated: 1, unchanged: 1, written: true})
    expect(stored('up', '1')).toEqual(before)
    const b = stored('up', '2')!
    expect(b.enabled).toBe(0)
    expect(JSON.parse(b.metadata)).toEqual({color: 'green'})
    expect(b.updated_at > before.updated_at).toBe(true)
    // same file in live: separate environment
    expect(await geofences(header + 'A,circle,up,1,"[7.42,43.73]",50,true,red\n', {live: true})).toMatchObject({created: 1})
  })

  it('a re-import skips rows it wrote from the same text, and restores any edited since by the API or the expiry job', async () => {
    const header = 'description,type,tag,externalId,coordinates,radius,enabled,metadata.n\n'
    // 601 rows: several 250-row statements, a remainder, and more than one 500-row stage batch
    const rows = Array.from({length: 601}, (_, i) => `R${i},${i % 2 ? 'circle' : 'polygon'},again,${i},"${i % 2 ? '[7.42,43.73]' : '[[7.41,43.73],[7.42,43.73],[7.42,43.74],[7.41,43.73]]'}",${i % 2 ? 60 : ''},true,${i}\n`)
    expect(await geofences(header + rows.join(''))).toMatchObject({created: 601, failed: 0})
    const stamps = (system.store.sqlite.prepare("SELECT updated_at, created_at FROM geofences WHERE tag = 'again' ORDER BY CAST(external_id AS INTEGER)").all() as Array<{updated_at: string; created_at: string}>)
    // one fresh stamp per row, in file order, as toISOString prints them
    expect(stamps.every((s, i) => s.updated_at === s.created_at && s.updated_at === new Date(s.updated_at).toISOString() && (i === 0 || s.updated_at > stamps[i - 1].updated_at))).toBe(true)

    const changes = () => (system.store.sqlite.prepare('SELECT count(*) AS n FROM changes').get() as {n: number}).n
    const feed = changes()
    expect(await geofences(header + rows.join(''))).toMatchObject({created: 0, updated: 0, unchanged: 601, written: true})
    expect(changes()).toBe(feed)

    // edited through the API's write path, and disabled by the expiry job: the same file restores both
    const edited = parse(geofenceInputSchema, {description: 'Edited', type: 'circle', coordinates: [7.5, 43.8], radius: 99})
    await upsertGeofenceByKey(system.store, false, 'again', '1', edited)
    system.store.sqlite.prepare("UPDATE geofences SET disable_after = '2000-01-01T00:00:00.000Z' WHERE tag = 'again' AND external_id = '3'").run()
    expect((await expireGeofences(system.store, new Date())).disabled).toBe(1)
    expect(await geofences(header + rows.join(''))).toMatchObject({updated: 2, unchanged: 599})
    expect(stored('again', '1')).toMatchObject({description: 'R1', radius: 60})
    expect(stored('again', '3')).toMatchObject({enabled: 1, disable_after: null})

    // the same content from other text (columns reordered) is unchanged, and its new text is skipped next time
    const reordered = 'type,description,tag,externalId,coordinates,radius,enabled,metadata.n\n' + rows.map((r) => r.replace(/^(R\d+),(\w+),/, '$2,$1,')).join('')
    expect(await geofences(reordered)).toMatchObject({updated: 0, unchanged: 601})
    const hashes = (system.store.sqlite.prepare("SELECT import_hash FROM geofences WHERE tag = 'again' ORDER BY external_id").all() as Array<{import_hash: string}>).map((r) => r.import_hash)
    expect(await geofences(reordered)).toMatchObject({unchanged: 601})
    expect((system.store.sqlite.prepare("SELECT import_hash FROM geofences WHERE tag = 'again' ORDER BY external_id").all() as Array<{import_hash: string}>).map((r) => r.import_hash)).toEqual(hashes)
    // a skipped row still counts for duplicates
    expect((await geofences(header + rows[1] + rows[1])).failures).toEqual([{row: 3, column: 'externalId', reason: 'must be unique within its tag in the file (row 2 has the same tag and externalId)'}])
  })

  it('refuses a file that is not CSV, and an empty one', async () => {
    const broken = await geofences('description,type,tag,externalId,coordinates,radius\nA,circle,q,1,"[7.42,43.73],50\n')
    expect(broken).toMatchObject({written: false, failed: 1})
    expect(broken.failures[0].reason).toMatch(/^not valid CSV/)
    expect((await geofences('')).failures).toEqual([{row: 1, reason: 'the file is empty: the first row must be the header'}])
  })
})

describe('beacon CSV import', () => {
  it('imports every column and upserts on tag + externalId', async () => {
    const header = 'description,tag,externalId,type,uuid,major,minor,uid,instance,coordinates,enabled,metadata\n'
    const text = header +
      'Door,b,1,ibeacon,b9407f30-f5f8-466e-aff9-25556b57fe6d,100,1,,,"[7.42,43.73]",true,"{""floor"":1}"\n' +
      'Gate,b,2,eddystone,,,,edd1ed00000000000000,aa0000000001,"[7.43,43.74]",false,\n' +
      'Loose,,,ibeacon,b9407f30-f5f8-466e-aff9-25556b57fe6d,1,2,,,"[7.42,43.73]",true,\n'
    const first = await importBeacons(system, csv(text), {live: false})
    expect(first).toMatchObject({created: 3, failed: 0})
    const door = system.store.sqlite.prepare("SELECT * FROM beacons WHERE tag = 'b' AND external_id = '1'").get() as Record<string, unknown>
    expect(door).toMatchObject({type: 'ibeacon', uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '100', minor: '1', lng: 7.42, lat: 43.73, enabled: 1, metadata: '{"floor":1}'})
    const again = await importBeacons(system, csv(text.replace('aa0000000001', 'aa0000000002')), {live: false})
    // rows without tag + externalId cannot be matched: created again
    expect(again).toMatchObject({created: 1, updated: 1, unchanged: 1})
    const bad = await importBeacons(system, csv(header + 'X,b,3,ibeacon,,1,2,,,"[7.42,43.73]",true,\nY,b,4,ibeacon,b9407f30-f5f8-466e-aff9-25556b57fe6d,1,2,,,"[200,43]",true,\n'), {live: false})
    expect(bad.failures).toEqual([
      {row: 2, column: 'uuid', reason: 'required for type ibeacon'},
      {row: 3, column: 'coordinates', reason: 'must be [longitude, latitude] with longitude -180 to 180 and latitude -90 to 90'},
    ])
  })

  it('refuses identifiers not of their form with their column, importing nothing; stores each in its one form', async () => {
    const header = 'description,tag,externalId,type,uuid,major,minor,uid,instance,coordinates,enabled\n'
    const before = system.store.sqlite.prepare('SELECT * FROM beacons ORDER BY rowid').all()
    const bad = await importBeacons(system, csv(header +
      'A,ids,1,ibeacon,B9407F30F5F8466EAFF925556B57FE6D,7,1,,,"[7.42,43.73]",true\n' +
      'B,ids,2,ibeacon,door-2,7,1,,,"[7.42,43.73]",true\n' +
      'C,ids,3,ibeacon,b9407f30-f5f8-466e-aff9-25556b57fe6d,70000,1,,,"[7.42,43.73]",true\n' +
      'D,ids,4,eddystone,,,,edd1ebeac04e5def,0123456789ab,"[7.42,43.73]",true\n' +
      'E,ids,5,eddystone,,,,edd1ebeac04e5defa017,01234567,"[7.42,43.73]",true\n'), {live: false})
    expect(bad).toMatchObject({written: false, failed: 4})
    expect(bad.failures).toEqual([
      {row: 3, column: 'uuid', reason: 'must be an iBeacon UUID: 32 hex digits, as 8-4-4-4-12 (f7826da6-4fa2-4e98-8024-bc5b71e0893e)'},
      {row: 4, column: 'major', reason: 'must be an integer from 0 to 65535'},
      {row: 5, column: 'uid', reason: 'must be an Eddystone namespace: 10 bytes as 20 hex digits (edd1ebeac04e5defa017)'},
      {row: 6, column: 'instance', reason: 'must be an Eddystone instance: 6 bytes as 12 hex digits (0123456789ab)'},
    ])
    expect(system.store.sqlite.prepare('SELECT * FROM beacons ORDER BY rowid').all()).toEqual(before)

    const good = await importBeacons(system, csv(header +
      'A,ids,1,ibeacon,B9407F30F5F8466EAFF925556B57FE6D,007,1,,,"[7.42,43.73]",true\n' +
      'D,ids,4,eddystone,,,,0XEDD1EBEAC04E5DEFA017,0123456789AB,"[7.42,43.73]",true\n'), {live: false})
    expect(good).toMatchObject({created: 2, failed: 0})
    expect(system.store.sqlite.prepare("SELECT uuid, major, minor, uid, instance FROM beacons WHERE tag = 'ids' ORDER BY external_id").all()).toEqual([
      {uuid: 'b9407f30-f5f8-466e-aff9-25556b57fe6d', major: '7', minor: '1', uid: null, instance: null},
      {uuid: null, major: null, minor: null, uid: 'edd1ebeac04e5defa017', instance: '0123456789ab'},
    ])
  })
})
