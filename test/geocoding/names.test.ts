import Database from 'better-sqlite3'
import {describe, expect, it} from 'vitest'
import type {Doc} from '../../src/geocoding/docs.js'
import {Localizer, NameBook, nameValues, writeNames} from '../../src/geocoding/names.js'
import {MAP_SCHEMA} from '../../src/osm/schema.js'

/** A region database as the import writes it: New York the state and the city share a name, not their other names. */
function region(): Database.Database {
  const db = new Database(':memory:')
  db.exec(MAP_SCHEMA)
  const area = db.prepare("INSERT INTO admin_areas VALUES (?, ?, ?, ?, ?, 'US', NULL, NULL, -74, 40.7, '{}', NULL)")
  area.run(1, 61320, 'state', 4, 'New York')
  area.run(2, 175905, 'city', 5, 'New York')
  db.prepare("INSERT INTO layer_features VALUES (1, 7, 'place_label', 'city', 'New York', 6, 22, '{}')").run()
  db.prepare("INSERT INTO streets VALUES (1, 'Broadway', 'primary', 3, 2000, -73.99, 40.75, '{}')").run()
  const names = db.prepare('INSERT INTO names VALUES (?, ?, ?)')
  names.run('area', 1, JSON.stringify({ja: 'ニューヨーク州', es: 'Nueva York', it: 'New York'}))
  names.run('area', 2, JSON.stringify({ja: 'ニューヨーク', es: 'Nueva York', official_name: 'City of New York'}))
  names.run('label', 7, JSON.stringify({ko: '뉴욕', ja: 'ニューヨーク市', alt_name: 'NYC;Big Apple'}))
  names.run('street', 1, JSON.stringify({ja: 'ブロードウェイ'}))
  return db
}

const address: Doc = {
  layer: 'address', name: null, number: '1', unit: null, street: 'Broadway', neighborhood: null, borough: null, city: 'New York', county: null,
  state: 'New York', stateCode: 'NY', postalCode: '10004', country: 'United States', countryCode: 'US', lon: -74.01, lat: 40.7, importance: 0.5, category: null, ref: 1,
}

describe('other names', () => {
  it('names each part in the language asked for by the area of that rank, else keeps the local name', () => {
    const db = region()
    const book = new NameBook(db)
    writeNames(db, book)
    const local = new Localizer(db)
    const pick = (d: Doc) => ({street: d.street, city: d.city, state: d.state, country: d.country, postalCode: d.postalCode, stateCode: d.stateCode})
    expect(pick(local.localize(address, 'ja'))).toEqual({street: 'ブロードウェイ', city: 'ニューヨーク', state: 'ニューヨーク州', country: 'アメリカ合衆国', postalCode: '10004', stateCode: 'NY'})
    // the city's label node gives what its polygon lacks; the state has no Korean name
    expect(pick(local.localize(address, 'ko'))).toEqual({street: 'Broadway', city: '뉴욕', state: 'New York', country: '미국', postalCode: '10004', stateCode: 'NY'})
    db.close()
  })

  it('searches a town by its other names, its own first, and splits alt_name lists', () => {
    const db = region()
    const book = new NameBook(db)
    expect(book.ownArea('city', 'New York', book.areas.get(2))).toEqual({ja: 'ニューヨーク', es: 'Nueva York', official_name: 'City of New York', ko: '뉴욕', alt_name: 'NYC;Big Apple'})
    expect(nameValues(book.named('city', 'New York'))).toEqual(['ニューヨーク', 'Nueva York', 'City of New York', '뉴욕', 'NYC', 'Big Apple'])
    expect(nameValues(book.named('state', 'New York'))).toEqual(['ニューヨーク州', 'Nueva York'])
    db.close()
  })
})
