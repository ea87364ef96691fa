import type {z} from 'zod'
import {beaconUpdateSchema} from '../beacons/input.js'
import {type BeaconInput, columns as beaconColumns} from '../beacons/store.js'
import {type GeofenceInput, geofenceInputSchemaFor} from '../geofences/input.js'
import {contentColumns} from '../geofences/store.js'
import {newId} from '../store/ids.js'
import type {System as FullSystem} from '../system.js'

/** What imports and syncs use of the running system (API handlers have all but `close`). */
export type System = Pick<FullSystem, 'store' | 'config' | 'log' | 'isochrones' | 'mapGeometry'>
import {CsvUnreadable, readCsv, type RowFailure} from './csv.js'
import {fastGeofenceRows} from './geofence-row.js'
import {KnownRows} from './known.js'
import {type CsvFormat, type Header, readHeader, rowInput} from './header.js'
import {exclusive, type MergeCounts, Stage, type StageSpec} from './stage.js'

export interface ImportOptions {
  live: boolean
  /** Import the valid rows and list the rest; default all-or-nothing. */
  partial?: boolean
  /** Validate and count; write nothing. */
  dryRun?: boolean
  /** A sync source: its rows are marked as its own, and with `prune` its rows absent from the file are deleted. */
  source?: {id: string; prune: boolean}
  /** Called every 1,000 rows with the rows and bytes read so far. */
  progress?: (rows: number, bytes: number) => void
}

export interface ImportSummary extends MergeCounts {
  rows: number
  failed: number
  /** True when rows were written (false for a dry run and for a refused all-or-nothing import). */
  written: boolean
  failures: RowFailure[]
}

/** At most this many failures are kept (the count is always exact). */
const FAILURES_KEPT = 10_000

export const GEOFENCE_CSV: CsvFormat = {
  columns: ['description', 'type', 'tag', 'externalId', 'coordinates', 'address', 'placeId', 'radius', 'mode', 'enabled', 'metadata',
    'operatingHours', 'stopDetection', 'disableAfter', 'deleteAfter', 'userId', 'userIds', 'ip', 'dwellThreshold', 'tripApproachingThreshold'],
  required: ['description', 'type', 'tag', 'externalId'],
  oneOf: ['coordinates', 'address', 'placeId'],
  hours: true,
}

export const BEACON_CSV: CsvFormat = {
  columns: ['description', 'tag', 'externalId', 'type', 'uuid', 'major', 'minor', 'uid', 'instance', 'coordinates', 'enabled', 'metadata'],
  required: ['description', 'type', 'coordinates', 'enabled'],
  hours: false,
}

interface Kind<T> {
  format: CsvFormat
  schema: z.ZodType<T>
  spec: (source: boolean) => StageSpec
  /** Rows a re-import can skip unparsed (known.ts); kinds without it parse every row. */
  known?: (header: Header, source: string | undefined) => KnownRows
  /** The schema's value for rows plainly well-formed, without the schema (undefined: ask the schema). */
  fast?: (header: Header) => (cells: string[]) => T | undefined
  /** The staged columns of a valid row, or a failure of a rule the schema does not state. */
  row(input: T, source: string | undefined): Record<string, unknown> | RowFailure[]
  key(input: T): string | undefined
}

const GEOFENCE_COLUMNS = Object.keys(contentColumns({description: '', type: 'circle', enabled: true,
  shape: {geometry: {type: 'Polygon', coordinates: []}, center: [0, 0], radius: 0, bbox: {minLng: 0, minLat: 0, maxLng: 0, maxLat: 0}}}, '')).filter((c) => c !== 'updated_at')

function geofenceKind(system: System, live: boolean): Kind<GeofenceInput> {
  return {
    format: GEOFENCE_CSV,
    schema: geofenceInputSchemaFor(system),
    spec: (source) => ({table: 'geofences', columns: source ? [...GEOFENCE_COLUMNS, 'sync_source'] : GEOFENCE_COLUMNS, hashed: true}),
    known: (header, source) => new KnownRows(system.store, live, header, source),
    fast: fastGeofenceRows,
    row(input, source) {
      const missing = (['tag', 'externalId'] as const).filter((k) => input[k] === undefined)
      if (missing.length) return missing.map((column) => ({row: 0, column, reason: 'required (rows are matched on tag and externalId)'}))
      return Object.assign(contentColumns(input, ''), {sync_source: source})
    },
    key: (input) => `${input.tag}\u0000${input.externalId}`,
  }
}

const beaconKind: Kind<BeaconInput> = {
  format: BEACON_CSV,
  schema: beaconUpdateSchema as unknown as z.ZodType<BeaconInput>,
  spec: () => ({table: 'beacons', columns: ['tag', 'external_id', ...Object.keys(beaconColumns({description: '', type: 'ibeacon', coordinates: [0, 0], enabled: true}))]}),
  row: (input) => ({tag: input.tag ?? null, external_id: input.externalId ?? null, ...beaconColumns(input)}),
  key: (input) => (input.tag && input.externalId ? `${input.tag}\u0000${input.externalId}` : undefined),
}

/** Imports a geofence CSV (the spec's format): upserts on `tag` + `externalId`. */
export function importGeofences(system: System, file: string, options: ImportOptions): Promise<ImportSummary> {
  return importCsv(system, geofenceKind(system, options.live), file, options)
}

/** Imports a beacon CSV: upserts on `tag` + `externalId`; rows without both are created. */
export function importBeacons(system: System, file: string, options: ImportOptions): Promise<ImportSummary> {
  return importCsv(system, beaconKind, file, options)
}

/**
 * Streams the file once: each row is validated by the domain's input schema and staged; then one
 * transaction writes the lot (see Stage). All-or-nothing unless `partial`: a file with a bad row
 * changes nothing, and every bad row is listed. The change feed carries the result to every
 * follower (a running `loc serve` included) on its next read.
 */
function importCsv<T>(system: System, kind: Kind<T>, file: string, options: ImportOptions): Promise<ImportSummary> {
  return exclusive(system.store, async () => {
    const stage = await Stage.open(system.store, kind.spec(options.source !== undefined), options.live)
    const summary: ImportSummary = {rows: 0, failed: 0, created: 0, updated: 0, unchanged: 0, deleted: 0, written: false, failures: []}
    const fail = (failures: RowFailure[]) => {
      summary.failed++
      for (const f of failures) if (summary.failures.length < FAILURES_KEPT) summary.failures.push(f)
    }
    const seen = new Map<string, number>()
    /** True when the key is new in this file; else the row fails as a repeat. */
    const firstOf = (key: string, row: number) => {
      const first = seen.get(key)
      if (first === undefined) return seen.set(key, row) && true
      fail([{row, column: 'externalId', reason: `must be unique within its tag in the file (row ${first} has the same tag and externalId)`}])
      return false
    }
    try {
      let header: Header | undefined
      let known: KnownRows | undefined
      let fast: ((cells: string[]) => T | undefined) | undefined
      for await (const {row, cells, bytes} of readCsv(file)) {
        if (!header) {
          const read = readHeader(kind.format, cells)
          if (Array.isArray(read)) {
            summary.failures = read
            summary.failed = 1
            return summary
          }
          header = read
          known = kind.known?.(header, options.source?.id)
          fast = kind.fast?.(header)
          continue
        }
        summary.rows++
        if (summary.rows % 1000 === 0) options.progress?.(summary.rows, bytes)
        const hash = known && cells.length === header.names.length ? known.hashOf(cells) : undefined
        if (hash !== undefined) {
          const existing = known!.unchanged(cells, hash)
          if (existing !== undefined) {
            const [tag, externalId] = known!.keyOf(cells)
            if (firstOf(`${tag}\u0000${externalId}`, row) && (summary.failed === 0 || options.partial) && stage.keep(existing, tag, externalId)) await stage.flush()
            continue
          }
        }
        const value = fast?.(cells)
        const parsed = value !== undefined ? {value} : rowInput(kind.schema, header, row, cells)
        if ('failures' in parsed) {
          fail(parsed.failures)
          continue
        }
        const staged = kind.row(parsed.value, options.source?.id)
        if (Array.isArray(staged)) {
          fail(staged.map((f) => ({...f, row})))
          continue
        }
        const key = kind.key(parsed.value)
        if (key !== undefined && !firstOf(key, row)) continue
        // an all-or-nothing import that has failed already only validates the rest
        if ((summary.failed === 0 || options.partial) && stage.add(newId(), staged, hash)) await stage.flush()
      }
      if (!header) {
        summary.failed = 1
        summary.failures = [{row: 1, reason: 'the file is empty: the first row must be the header'}]
        return summary
      }
      if (summary.failed > 0 && !options.partial) return summary
      const dryRun = options.dryRun ?? false
      const pruneSource = options.source?.prune ? options.source.id : undefined
      Object.assign(summary, await stage.merge({dryRun, pruneSource}), {written: !dryRun})
      return summary
    } catch (error) {
      if (!(error instanceof CsvUnreadable)) throw error
      summary.failed++
      summary.failures.push(error.failure)
      summary.written = false
      return summary
    } finally {
      if (!summary.written) await stage.discard()
    }
  })
}
