import {createHash} from 'node:crypto'
import {CompiledQuery} from 'kysely'
import type {Store} from '../store/db.js'
import {reserveMs} from '../store/ids.js'
import {writeGrouped} from '../store/write.js'

/** The table an import writes and the columns of its rows besides `id`, `live`, `created_at`, `updated_at`. */
export interface StageSpec {
  table: 'geofences' | 'beacons'
  columns: readonly string[]
  /** The table has `import_hash` (src/sync/known.ts): written rows store their text's hash with their stamp. */
  hashed?: boolean
}

export interface MergeCounts {
  created: number
  updated: number
  unchanged: number
  deleted: number
}

/** Rows written to the stage per transaction: few enough that they die young (4,000 cost 120 MB of peak RSS). */
const BATCH = 500
/** Rows per INSERT statement: many rows a statement, within SQLite's 32,766 bound values. */
const ROWS_PER_STATEMENT = 250

/**
 * Valid rows of an import wait in a temporary table (on disk when large, so memory stays bounded
 * at any file size) and reach the real table in one transaction by `merge`: set-based SQL that
 * creates, updates and (for a pruning sync) deletes, and leaves rows whose content is unchanged
 * untouched — no write, no change feed entry, no new `updatedAt`. A row is unchanged when every
 * staged column equals the stored one (`IS`, so NULLs compare), which also catches edits made
 * through the API since the last import. Rows a re-import skipped unparsed (`keep`, see known.ts)
 * are staged by key only, so a pruning sync keeps them.
 *
 * One stage per table and store: imports on one store run one at a time (`exclusive`). Its writes
 * go through group commit, so an import in a running server (a sync) waits its turn for the write
 * lock in the event loop, as every write of a server does.
 */
export class Stage {
  /** Staged rows not yet written: `id, live, hash, seq, ...columns` each, flat. */
  private pending: unknown[] = []
  /** Staged rows so far: each row's `seq`, its stamp's offset when written. */
  private staged = 0
  /** Kept rows not yet written: `existing, live, tag, external_id` each, flat. */
  private kept: unknown[] = []
  private readonly name: string
  private readonly width: number

  private constructor(private readonly store: Store, private readonly spec: StageSpec, private readonly live: boolean) {
    // one table per column set (a sync stages `sync_source`, a file import does not)
    this.name = `temp.import_${spec.table}_${createHash('sha1').update(spec.columns.join()).digest('hex').slice(0, 8)}`
    this.width = spec.columns.length + 4
  }

  /** An empty stage for `spec`'s rows. */
  static async open(store: Store, spec: StageSpec, live: boolean): Promise<Stage> {
    const stage = new Stage(store, spec, live)
    await writeGrouped(store, (tx) => {
      tx.run(CompiledQuery.raw(`CREATE TEMP TABLE IF NOT EXISTS ${stage.name} (id, live, hash, seq, ${spec.columns.join(', ')}, existing, changed DEFAULT 1)`))
      tx.run(CompiledQuery.raw(`DELETE FROM ${stage.name}`))
    })
    return stage
  }

  /**
   * Adds a row (an object with every column of the spec) and the hash of its text; written in
   * batches: true when a batch is full and the caller is to `flush` it.
   */
  add(id: string, row: Record<string, unknown>, hash?: string): boolean {
    this.pending.push(id, this.live ? 1 : 0, hash ?? null, this.staged++)
    for (const column of this.spec.columns) this.pending.push(row[column] ?? null)
    return this.pending.length >= BATCH * this.width
  }

  /** Adds the key of a row stored already and unchanged (known.ts), so a pruning merge keeps it; true as `add`. */
  keep(existing: string, tag: string, externalId: string): boolean {
    this.kept.push(existing, this.live ? 1 : 0, tag, externalId)
    return this.kept.length >= BATCH * 4
  }

  async flush(): Promise<void> {
    if (!this.pending.length && !this.kept.length) return
    const {pending, kept} = this
    this.pending = []
    this.kept = []
    const columns = ['id', 'live', 'hash', 'seq', ...this.spec.columns].join(', ')
    await writeGrouped(this.store, (tx) => {
      insertMany(tx.run.bind(tx), `INSERT INTO ${this.name} (${columns}) VALUES `, this.width, pending)
      insertMany(tx.run.bind(tx), `INSERT INTO ${this.name} (existing, live, tag, external_id, changed) VALUES `, 4, kept, '0')
    })
  }

  /**
   * Counts what a merge does and, unless `dryRun`, does it in one transaction. `pruneSource`
   * deletes that sync source's rows whose `tag` + `externalId` the stage does not have.
   */
  async merge(options: {dryRun: boolean; pruneSource?: string}): Promise<MergeCounts> {
    await this.flush()
    const {table, columns, hashed} = this.spec
    const stage = this.name
    const compared = columns.filter((c) => c !== 'tag' && c !== 'external_id')
    const same = compared.map((c) => `${stage}.${c} IS g.${c}`).join(' AND ')
    const live = this.live ? 1 : 0
    const run = (text: string, params: unknown[] = []) => CompiledQuery.raw(text, params)
    return writeGrouped(this.store, (tx) => {
      tx.run(run(`UPDATE ${stage} SET existing = g.id, changed = NOT (${same})
        FROM main.${table} g WHERE ${stage}.existing IS NULL AND g.live = ${stage}.live AND g.tag = ${stage}.tag AND g.external_id = ${stage}.external_id`))
      const counts = tx.get<{created: number | null; updated: number | null; unchanged: number | null; written: number}>(run(
        `SELECT sum(existing IS NULL) AS created, sum(existing IS NOT NULL AND changed) AS updated, sum(NOT changed) AS unchanged, sum(changed) AS written FROM ${stage}`))!
      const orphans = `FROM main.${table} WHERE live = ${live} AND sync_source = ? AND NOT EXISTS
        (SELECT 1 FROM ${stage} s WHERE s.tag = ${table}.tag AND s.external_id = ${table}.external_id)`
      let deleted = 0
      if (options.pruneSource !== undefined) {
        // indexed for the prune only (kept up while staging, the index cost every import)
        tx.run(run(`CREATE INDEX IF NOT EXISTS ${stage}_key ON ${stage.slice(5)} (tag, external_id)`))
        deleted = options.dryRun
          ? tx.get<{n: number}>(run(`SELECT count(*) AS n ${orphans}`, [options.pruneSource]))!.n
          : tx.run(run(`DELETE ${orphans}`, [options.pruneSource]))
      }
      if (!options.dryRun && counts.written) {
        // a fresh stamp per written row, in file order (list cursors need distinct stamps): the row's
        // `seq` milliseconds after the first of as many as were staged (a window numbering cost 40 % more).
        // `LIMIT -1` keeps the stamp's subquery a coroutine: flattened, SQLite formatted each stamp three times
        const first = reserveMs(this.staged)
        const stamp = `strftime('%Y-%m-%dT%H:%M:%S', ms / 1000, 'unixepoch') || printf('.%03dZ', ms % 1000)`
        const hashColumn = hashed ? ', import_hash' : ''
        const set = compared.map((c) => `${c} = excluded.${c}`).join(', ')
        tx.run(run(`INSERT INTO main.${table} (id, live, ${columns.join(', ')}${hashColumn}, created_at, updated_at)
          SELECT id, live, ${columns.join(', ')}${hashed ? `, hash || ' ' || stamp` : ''}, stamp, stamp
          FROM (SELECT *, ${stamp} AS stamp FROM (SELECT *, ? + seq AS ms FROM ${stage} WHERE changed) LIMIT -1)
          WHERE true
          ON CONFLICT (live, tag, external_id) WHERE external_id IS NOT NULL DO UPDATE SET ${set}${hashed ? ', import_hash = excluded.import_hash' : ''}, updated_at = excluded.updated_at`, [first]))
      }
      if (!options.dryRun && hashed) {
        // same content from different text (reordered columns, `1` for `true`): store the new text's hash so the next re-import skips it
        tx.run(run(`UPDATE main.${table} SET import_hash = s.hash || ' ' || ${table}.updated_at FROM ${stage} s
          WHERE s.existing = ${table}.id AND NOT s.changed AND s.hash IS NOT NULL AND ${table}.import_hash IS NOT s.hash || ' ' || ${table}.updated_at`))
      }
      tx.run(run(`DELETE FROM ${stage}`))
      tx.run(run(`DROP INDEX IF EXISTS ${stage}_key`))
      this.staged = 0
      return {created: counts.created ?? 0, updated: counts.updated ?? 0, unchanged: counts.unchanged ?? 0, deleted}
    })
  }

  /** Empties the stage without writing (an import that failed). */
  async discard(): Promise<void> {
    this.pending = []
    this.staged = 0
    this.kept = []
    await writeGrouped(this.store, (tx) => tx.run(CompiledQuery.raw(`DELETE FROM ${this.name}`)))
  }
}

/** INSERTs `values` (`width` a row, flat) `ROWS_PER_STATEMENT` rows a statement; `extra` is appended to every row's values. */
function insertMany(run: (query: CompiledQuery) => number, head: string, width: number, values: unknown[], extra?: string): void {
  const rows = values.length / width
  const tuple = `(${Array(width).fill('?').join(', ')}${extra ? `, ${extra}` : ''})`
  const full = statements.get(head + tuple) ?? statements.set(head + tuple, head + Array(ROWS_PER_STATEMENT).fill(tuple).join(', ')).get(head + tuple)!
  let row = 0
  for (; row + ROWS_PER_STATEMENT <= rows; row += ROWS_PER_STATEMENT) {
    run(CompiledQuery.raw(full, values.slice(row * width, (row + ROWS_PER_STATEMENT) * width)))
  }
  for (; row < rows; row++) run(CompiledQuery.raw(head + tuple, values.slice(row * width, (row + 1) * width)))
}

/** The text of each many-row INSERT, by its head and row (22 KB strings, built once). */
const statements = new Map<string, string>()

const locks = new WeakMap<Store, Promise<unknown>>()

/** Runs imports on one store one after another (they share its stage tables). */
export function exclusive<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(store) ?? Promise.resolve()
  const next = previous.then(fn, fn)
  locks.set(store, next.catch(() => undefined))
  return next
}
