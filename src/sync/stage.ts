import {createHash} from 'node:crypto'
import {CompiledQuery} from 'kysely'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {write} from '../store/write.js'

/** The table an import writes and the columns of its rows besides `id`, `live`, `created_at`, `updated_at`. */
export interface StageSpec {
  table: 'geofences' | 'beacons'
  columns: readonly string[]
}

export interface MergeCounts {
  created: number
  updated: number
  unchanged: number
  deleted: number
}

const BATCH = 2000

/**
 * Valid rows of an import wait in a temporary table (on disk when large, so memory stays bounded
 * at any file size) and reach the real table in one transaction by `merge`: set-based SQL that
 * creates, updates and (for a pruning sync) deletes, and leaves rows whose content is unchanged
 * untouched — no write, no change feed entry, no new `updatedAt`. A row is unchanged when every
 * staged column equals the stored one (`IS`, so NULLs compare), which also catches edits made
 * through the API since the last import; no hash column to keep in step.
 *
 * One stage per table and store: imports on one store run one at a time (`exclusive`).
 */
export class Stage {
  private pending: unknown[][] = []
  private readonly name: string
  private readonly insertSql: string

  constructor(private readonly store: Store, private readonly spec: StageSpec, private readonly live: boolean) {
    // one table per column set (a sync stages `sync_source`, a file import does not)
    const table = `import_${spec.table}_${createHash('sha1').update(spec.columns.join()).digest('hex').slice(0, 8)}`
    this.name = `temp.${table}`
    const columns = ['id', 'live', ...spec.columns]
    this.insertSql = `INSERT INTO ${this.name} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`
    write(store, (tx) => {
      tx.run(CompiledQuery.raw(`CREATE TEMP TABLE IF NOT EXISTS ${table} (id, live, ${spec.columns.join(', ')}, existing, changed DEFAULT 1, stamp)`))
      tx.run(CompiledQuery.raw(`CREATE INDEX IF NOT EXISTS temp.${table}_key ON ${table} (tag, external_id)`))
      tx.run(CompiledQuery.raw(`DELETE FROM ${this.name}`))
    })
  }

  /** Adds a row (an object with every column of the spec); written in batches. */
  add(id: string, row: Record<string, unknown>): void {
    const values: unknown[] = [id, this.live ? 1 : 0]
    for (const column of this.spec.columns) values.push(row[column] ?? null)
    this.pending.push(values)
    if (this.pending.length >= BATCH) this.flush()
  }

  flush(): void {
    if (!this.pending.length) return
    const rows = this.pending
    this.pending = []
    write(this.store, (tx) => {
      for (const values of rows) tx.run(CompiledQuery.raw(this.insertSql, values))
    })
  }

  /**
   * Counts what a merge does and, unless `dryRun`, does it in one transaction. `pruneSource`
   * deletes that sync source's rows whose `tag` + `externalId` the stage does not have.
   */
  merge(options: {dryRun: boolean; pruneSource?: string}): MergeCounts {
    this.flush()
    const {table, columns} = this.spec
    const stage = this.name
    const compared = columns.filter((c) => c !== 'tag' && c !== 'external_id')
    const same = compared.map((c) => `${stage}.${c} IS g.${c}`).join(' AND ')
    const live = this.live ? 1 : 0
    const run = (text: string, params: unknown[] = []) => CompiledQuery.raw(text, params)
    return write(this.store, (tx) => {
      tx.run(run(`UPDATE ${stage} SET existing = g.id, changed = NOT (${same})
        FROM main.${table} g WHERE g.live = ${stage}.live AND g.tag = ${stage}.tag AND g.external_id = ${stage}.external_id`))
      const counts = tx.get<{created: number | null; updated: number | null; unchanged: number | null}>(run(
        `SELECT sum(existing IS NULL) AS created, sum(existing IS NOT NULL AND changed) AS updated, sum(NOT changed) AS unchanged FROM ${stage}`))!
      const orphans = `FROM main.${table} WHERE live = ${live} AND sync_source = ? AND NOT EXISTS
        (SELECT 1 FROM ${stage} s WHERE s.tag = ${table}.tag AND s.external_id = ${table}.external_id)`
      let deleted = 0
      if (options.pruneSource !== undefined) {
        deleted = options.dryRun
          ? tx.get<{n: number}>(run(`SELECT count(*) AS n ${orphans}`, [options.pruneSource]))!.n
          : tx.run(run(`DELETE ${orphans}`, [options.pruneSource]))
      }
      if (!options.dryRun) {
        // one fresh stamp per written row, in file order: list cursors (`updatedBefore`) need distinct stamps
        const stamps = tx.all<{rowid: number}>(run(`SELECT rowid FROM ${stage} WHERE changed`))
        for (const {rowid} of stamps) tx.run(run(`UPDATE ${stage} SET stamp = ? WHERE rowid = ?`, [nowIso(), rowid]))
        const set = compared.map((c) => `${c} = excluded.${c}`).join(', ')
        tx.run(run(`INSERT INTO main.${table} (id, live, ${columns.join(', ')}, created_at, updated_at)
          SELECT id, live, ${columns.join(', ')}, stamp, stamp FROM ${stage} WHERE changed ORDER BY rowid
          ON CONFLICT (live, tag, external_id) WHERE external_id IS NOT NULL DO UPDATE SET ${set}, updated_at = excluded.updated_at`))
      }
      tx.run(run(`DELETE FROM ${stage}`))
      return {created: counts.created ?? 0, updated: counts.updated ?? 0, unchanged: counts.unchanged ?? 0, deleted}
    })
  }

  /** Empties the stage without writing (an import that failed). */
  discard(): void {
    this.pending = []
    write(this.store, (tx) => tx.run(CompiledQuery.raw(`DELETE FROM ${this.name}`)))
  }
}

const locks = new WeakMap<Store, Promise<unknown>>()

/** Runs imports on one store one after another (they share its stage tables). */
export function exclusive<T>(store: Store, fn: () => Promise<T>): Promise<T> {
  const previous = locks.get(store) ?? Promise.resolve()
  const next = previous.then(fn, fn)
  locks.set(store, next.catch(() => undefined))
  return next
}
