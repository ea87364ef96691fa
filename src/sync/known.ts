import {hash} from 'node:crypto'
import type {Statement} from 'better-sqlite3'
import type {Store} from '../store/db.js'
import type {Header} from './header.js'

/** Bump when validation or the stored columns change, so rows imported before are parsed again. */
const ROW_FORMAT = 1

/**
 * Rows a re-import skips unparsed. An import stores `<hash of the row's text> <updated_at>` in
 * `geofences.import_hash`; a row whose hash (same cells, same header, same source) is stored with
 * the geofence's current `updated_at` was written from exactly this text and by nothing since (any
 * other write stamps a new `updated_at`). Parsing, validation, geometry and the write are skipped.
 * Rows whose geometry depends on more than their text are always parsed: isochrones (the road
 * graph) and rows with a `placeId` or `address` (the imported map: a place's footprint or centroid,
 * a geocoded point), so that a re-import after a map import re-resolves them.
 */
export class KnownRows {
  private readonly prefix: string
  private readonly lookup: Statement
  private readonly tag: number
  private readonly externalId: number
  private readonly type: number
  /** Indexes of the `placeId` and `address` cells the header has. */
  private readonly fromMap: number[]
  /** False when no geofence of this environment was imported yet (a first import need not look any row up). */
  private readonly any: boolean

  constructor(store: Store, private readonly live: boolean, header: Header, source: string | undefined) {
    this.prefix = `${ROW_FORMAT}\u0001${source ?? ''}\u0001${header.names.join('\u0001')}\u0002`
    this.lookup = store.statement('SELECT id, import_hash, updated_at FROM geofences WHERE live = ? AND tag = ? AND external_id = ?')
    this.tag = header.names.indexOf('tag')
    this.externalId = header.names.indexOf('externalId')
    this.type = header.names.indexOf('type')
    this.fromMap = ['placeId', 'address'].map((name) => header.names.indexOf(name)).filter((i) => i !== -1)
    this.any = store.statement('SELECT 1 FROM geofences WHERE live = ? AND import_hash IS NOT NULL LIMIT 1').get(live ? 1 : 0) !== undefined
  }

  /** The hash of a row's text (cells as many as the header's), or undefined for a row that is always parsed. */
  hashOf(cells: string[]): string | undefined {
    if (cells[this.type] === 'isochrone' || this.fromMap.some((i) => cells[i] !== '')) return undefined
    return hash('sha1', this.prefix + cells.join('\u0001'), 'base64')
  }

  /** The id of the geofence imported from exactly this row and unchanged since, if there is one. */
  unchanged(cells: string[], rowHash: string): string | undefined {
    const tag = cells[this.tag]
    const externalId = cells[this.externalId]
    if (!this.any || !tag || !externalId) return undefined
    const stored = this.lookup.get(this.live ? 1 : 0, tag, externalId) as {id: string; import_hash: string | null; updated_at: string} | undefined
    return stored && stored.import_hash === `${rowHash} ${stored.updated_at}` ? stored.id : undefined
  }

  /** The row's `tag` and `externalId` cells. */
  keyOf(cells: string[]): [tag: string, externalId: string] {
    return [cells[this.tag], cells[this.externalId]]
  }
}
