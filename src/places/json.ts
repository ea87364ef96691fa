import type Database from 'better-sqlite3'
import type {MapData} from '../map/index.js'
import type {Settings} from '../project/settings.js'
import {type ChainColumns, chainResolver} from './chain.js'
import {placeRow} from './index.js'

/** What of a `places` row the API's Place is made of. */
export interface PlaceColumns extends ChainColumns {
  osm_type: string
  osm_id: number
  name: string
  category: string
  lon: number
  lat: number
}

/** A row of a region's `places` table as track and event verification read it. */
export interface PlaceRow extends PlaceColumns {
  id: number
  footprint: string | null
}

/** The project settings a Place's chain shows. */
export type ChainSettings = Pick<Settings, 'places.chainMappings' | 'places.chainMetadata'>

/** A place as the API shows it, with its chain's slug (for `placeFilters` and search's filters). */
export interface ShownPlace {
  json: Record<string, unknown>
  chainSlug: string | null
}

const statements = new WeakMap<Database.Database, Database.Statement>()

/** The rows of these `places.id`s, in no set order. */
export function placeRows(db: Database.Database, ids: number[]): PlaceRow[] {
  let st = statements.get(db)
  if (!st) statements.set(db, (st = db.prepare('SELECT id, osm_type, osm_id, name, category, chain, chain_wikidata, lon, lat, footprint FROM places WHERE id IN (SELECT value FROM json_each(?))')))
  return st.all(JSON.stringify(ids)) as PlaceRow[]
}

/**
 * The API's Place for rows of `map` (search, events, `user.place`, `verifiedPlace`): `_id`, `name`,
 * `categories`, `chain` (one per brand: src/places/chain.ts) with `externalId` and `metadata` from
 * `places.chainMappings` / `places.chainMetadata` under its slug, `location`.
 */
export function placeShaper(map: MapData, settings: ChainSettings): (row: PlaceColumns) => ShownPlace {
  const chainOf = chainResolver(map)
  const mappings = settings['places.chainMappings'], metadata = settings['places.chainMetadata']
  return (row) => {
    const chain = chainOf(row)
    return {chainSlug: chain?.slug ?? null, json: {
      _id: `${row.osm_type}${row.osm_id}`, name: row.name, categories: [row.category],
      ...(chain ? {chain: {
        name: chain.name, slug: chain.slug,
        ...(mappings[chain.slug] ? {externalId: mappings[chain.slug]} : {}),
        ...(metadata[chain.slug] ? {metadata: metadata[chain.slug]} : {}),
      }} : {}),
      location: {type: 'Point', coordinates: [row.lon, row.lat]},
    }}
  }
}

/** The place with this id (`n4449492349`) as events carry it; null when no imported region has it. */
export function placeNamed(map: MapData, placeId: string, settings: ChainSettings): Record<string, unknown> | null {
  const found = placeRow(map, placeId)
  const db = found && map.db(found.region)
  const [row] = db ? placeRows(db, [found.id]) : []
  return row ? placeShaper(map, settings)(row).json : null
}
