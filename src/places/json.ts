import type Database from 'better-sqlite3'
import type {MapData} from '../map/index.js'
import type {Settings} from '../project/settings.js'
import {placeRow} from './index.js'

/** A row of a region's `places` table as track and event verification read it. */
export interface PlaceRow {
  id: number
  osm_type: string
  osm_id: number
  name: string
  category: string
  chain: string | null
  lon: number
  lat: number
  footprint: string | null
}

const kebab = (s: string) => s.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '')

const statements = new WeakMap<Database.Database, Database.Statement>()

/** The rows of these `places.id`s, in no set order. */
export function placeRows(db: Database.Database, ids: number[]): PlaceRow[] {
  let st = statements.get(db)
  if (!st) statements.set(db, (st = db.prepare('SELECT id, osm_type, osm_id, name, category, chain, lon, lat, footprint FROM places WHERE id IN (SELECT value FROM json_each(?))')))
  return st.all(JSON.stringify(ids)) as PlaceRow[]
}

/**
 * A place as events and `user.place` carry it (the API's Place): `_id`, `name`, `categories`,
 * `chain` with `externalId` and `metadata` from `places.chainMappings` / `places.chainMetadata`,
 * `location`; and its chain's slug.
 */
export function placeJson(row: PlaceRow, settings: Settings): {json: Record<string, unknown>; chainSlug: string | null} {
  const slug = row.chain ? kebab(row.chain) : null
  const chain = slug ? {
    name: row.chain, slug,
    ...(settings['places.chainMappings'][slug] ? {externalId: settings['places.chainMappings'][slug]} : {}),
    ...(settings['places.chainMetadata'][slug] ? {metadata: settings['places.chainMetadata'][slug]} : {}),
  } : undefined
  return {chainSlug: slug, json: {
    _id: `${row.osm_type}${row.osm_id}`, name: row.name, categories: [row.category], ...(chain ? {chain} : {}),
    location: {type: 'Point', coordinates: [row.lon, row.lat]},
  }}
}

/** The place with this id (`n4449492349`) as events carry it; null when no imported region has it. */
export function placeNamed(map: MapData, placeId: string, settings: Settings): Record<string, unknown> | null {
  const found = placeRow(map, placeId)
  const db = found && map.db(found.region)
  const [row] = db ? placeRows(db, [found.id]) : []
  return row ? placeJson(row, settings).json : null
}
