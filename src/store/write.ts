import {type Compilable, type CompiledQuery, isCompilable, type RawBuilder} from 'kysely'
import {refuse, type Refusal} from '../errors.js'
import type {Store} from './db.js'

/** How long a write waits for another connection's write lock (another worker, a CLI import) before failing. */
export const BUSY_TIMEOUT_MS = 5000

/** A statement built with kysely (query builder or `sql` template), or compiled already. */
export type Query<R = unknown> = Compilable<R> | RawBuilder<R> | CompiledQuery<R>

/** What a write function is handed: statements run inside its transaction, synchronously. */
export interface Tx {
  readonly store: Store
  all<R>(query: Query<R>): R[]
  get<R>(query: Query<R>): R | undefined
  /** Runs a statement; returns how many rows it changed. */
  run(query: Query): number
  /** Runs after the commit (never after a rollback): wake a worker, drop a cache. Must not throw. */
  afterCommit(hook: () => void): void
}

/**
 * The one write path. `fn` runs inside a single synchronous `BEGIN IMMEDIATE` transaction on the
 * store's connection: it commits when `fn` returns and rolls back when it throws. Kysely builds the
 * SQL; nothing else may open a transaction (kysely refuses writes, see db.ts), so a synchronous and
 * an asynchronous transaction can never nest on the connection. A write inside a write is a bug and
 * throws: pass the `Tx` along instead.
 */
export function write<T>(store: Store, fn: (tx: Tx) => T): T {
  if (store.sqlite.inTransaction) throw new Error('write() inside a transaction: pass the Tx you were given instead')
  const hooks: Array<() => void> = []
  const tx = transactionOf(store, hooks)
  const result = store.sqlite.transaction(() => synchronous(fn(tx))).immediate()
  committed(store, hooks)
  return result
}

/**
 * Runs `fn`'s reads on one snapshot of the store, in a read transaction (inside a write, the
 * write's own): no other connection's commit shows between two of its statements.
 */
export function readSnapshot<T>(store: Store, fn: () => T): T {
  return store.sqlite.inTransaction ? fn() : store.sqlite.transaction(fn).deferred()
}

interface Pending {
  fn: (tx: Tx) => unknown
  savepoint: boolean
  resolve(value: unknown): void
  reject(error: unknown): void
}

export interface GroupedOptions {
  /**
   * false: `fn` throws only on a fault, never on its input or a conflict (a track, validated
   * before), and runs without a savepoint of its own, which cost ~10 µs of a track's ~50-100 in
   * process (SAVEPOINT and RELEASE, and SQLite copying each page the write touches that the batch
   * had touched before). Should it throw anyway, the whole batch rolls back and runs again with
   * every write in its own savepoint, so `fn` must be safe to run twice: side effects go in
   * `afterCommit`, as they do for every write.
   */
  savepoint?: boolean
}

const queues = new WeakMap<Store, Pending[]>()
/** When the queued batch first found the write lock taken (absent while it has not). */
const waitingSince = new WeakMap<Store, number>()

/**
 * Group commit: `fn` joins the writes queued in this turn of the event loop, all committed in one
 * transaction (one WAL sync for many requests), each inside its own savepoint so one that throws
 * rolls back alone (unless it asks for none: `GroupedOptions`). The promise settles after the
 * commit, so an answer sent then is durable.
 *
 * While another connection holds the write lock (a worker of `serve --workers`, a CLI import), the
 * batch waits in the event loop, not in SQLite's busy handler, which sleeps the whole process
 * (1 ms, growing to 100 ms a sleep) so that no other request is read or answered meanwhile; writes
 * that arrive during the wait join the batch. After `BUSY_TIMEOUT_MS` the batch fails as a
 * blocking write would.
 */
export function writeGrouped<T>(store: Store, fn: (tx: Tx) => T, options: GroupedOptions = {}): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    let queue = queues.get(store)
    if (!queue) {
      queues.set(store, (queue = []))
      setImmediate(() => flush(store))
    }
    queue.push({fn, savepoint: options.savepoint ?? true, resolve: resolve as (value: unknown) => void, reject})
  })
}

/**
 * `run`, an async body (migrations, through kysely), inside one transaction holding the write lock
 * of a connection nothing else uses yet (a store being opened); committed when `keep` says so, else
 * rolled back, as it is when `run` throws.
 */
export async function lockedWhile<T>(sqlite: Store['sqlite'], run: () => Promise<T>, keep: (result: T) => boolean): Promise<T> {
  sqlite.exec('BEGIN IMMEDIATE')
  try {
    const result = await run()
    sqlite.exec(keep(result) ? 'COMMIT' : 'ROLLBACK')
    return result
  } catch (error) {
    if (sqlite.inTransaction) sqlite.exec('ROLLBACK')
    throw error
  }
}

/** Whether `error` is SQLite's: another connection held the write lock (past the busy timeout, for a blocking write). */
export const isBusy = (error: unknown) => (error as {code?: string} | undefined)?.code === 'SQLITE_BUSY'

/** Whether `error` is SQLite's: the disk is full (or the store at its `max_page_count`); nothing of the write is stored. */
export const isFull = (error: unknown) => (error as {code?: string} | undefined)?.code === 'SQLITE_FULL'

/**
 * SQLite's refusals the caller can do nothing about but wait or free disk, as the one catalogue
 * words them (the API answers them 503, the CLI prints them); undefined for any other error.
 */
export function storeRefusal(error: unknown): Refusal | undefined {
  if (isBusy(error)) return refuse.storeBusy()
  if (isFull(error)) return refuse.storeFull()
  return undefined
}

const isUniqueViolation = (error: unknown) => (error as {code?: string} | null | undefined)?.code === 'SQLITE_CONSTRAINT_UNIQUE'

/** `writeGrouped`, with SQLite's refusal of a second row under a unique key thrown as `duplicate()` (a 409 refusal). */
export async function writeUnique<T>(store: Store, fn: (tx: Tx) => T, duplicate: () => Error): Promise<T> {
  try {
    return await writeGrouped(store, fn)
  } catch (error) {
    throw isUniqueViolation(error) ? duplicate() : error
  }
}

function flush(store: Store): void {
  const batch = queues.get(store) ?? []
  queues.delete(store)
  const fresh = () => batch.map(() => ({ok: false, value: undefined as unknown, error: undefined as unknown, hooks: [] as Array<() => void>}))
  let outcomes = fresh()
  let began = false
  let unguardedThrew = false
  // `guarded`: every write in its own savepoint, whatever it asked for
  const commit = (guarded: boolean) => store.sqlite.transaction(() => {
    began = true
    batch.forEach((item, i) => {
      const outcome = outcomes[i]
      const run = () => synchronous(item.fn(transactionOf(store, outcome.hooks)))
      if (!guarded && !item.savepoint) {
        try {
          outcome.value = run()
        } catch (error) {
          unguardedThrew = true
          throw error
        }
        outcome.ok = true
        return
      }
      try {
        // a nested better-sqlite3 transaction is a savepoint: this item alone rolls back on a throw
        outcome.value = store.sqlite.transaction(run)()
        outcome.ok = true
      } catch (error) {
        // on a full disk or an I/O error SQLite may roll back the whole transaction, not just the
        // savepoint: the batch is then lost as a whole and must not go on outside a transaction
        if (!store.sqlite.inTransaction) throw error
        outcome.error = error
      }
    })
  }).immediate()
  try {
    if (store.sqlite.inTransaction) throw new Error('group commit found a transaction open on the connection')
    store.statement('PRAGMA busy_timeout = 0').get()
    try {
      commit(false)
    } catch (error) {
      if (!unguardedThrew) throw error
      // a write without a savepoint threw and the batch rolled back: again, each write alone
      outcomes = fresh()
      began = false
      commit(true)
    }
  } catch (error) {
    const since = waitingSince.get(store) ?? Date.now()
    if (!began && isBusy(error) && Date.now() - since < BUSY_TIMEOUT_MS) {
      waitLocked(store, batch, since)
      return
    }
    // the commit itself failed: nothing of the batch is stored
    for (const outcome of outcomes) Object.assign(outcome, {ok: false, error: outcome.error ?? error})
  } finally {
    if (store.sqlite.open) store.statement(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`).get()
  }
  waitingSince.delete(store)
  committed(store, outcomes.flatMap((o) => (o.ok ? o.hooks : [])))
  batch.forEach((item, i) => (outcomes[i].ok ? item.resolve(outcomes[i].value) : item.reject(outcomes[i].error)))
}

/** Puts a batch that found the write lock taken back at the head of the queue, to try again in a millisecond. */
function waitLocked(store: Store, batch: Pending[], since: number): void {
  waitingSince.set(store, since)
  const queued = queues.get(store)
  queues.set(store, [...batch, ...(queued ?? [])])
  // writes queued since have a flush of their own coming; a lone batch waits for the next timer
  if (!queued) setTimeout(() => flush(store), 1)
}

function committed(store: Store, hooks: Array<() => void>): void {
  store.feed.touch()
  for (const hook of hooks) {
    try {
      hook()
    } catch (error) {
      process.emitWarning(`after-commit hook failed: ${(error as Error).message}`)
    }
  }
}

function synchronous<T>(value: T): T {
  if (value && typeof (value as {then?: unknown}).then === 'function') {
    throw new Error('write functions must be synchronous: the transaction would commit before the promise settles')
  }
  return value
}

function transactionOf(store: Store, hooks: Array<() => void>): Tx {
  const compile = (query: Query): CompiledQuery => {
    if ((query as RawBuilder<unknown>).isRawBuilder) return (query as RawBuilder<unknown>).compile(store.db)
    return isCompilable(query) ? query.compile() : (query as CompiledQuery)
  }
  const prepare = (query: Query) => {
    const compiled = compile(query)
    return {statement: store.statement(compiled.sql), parameters: compiled.parameters as unknown[]}
  }
  return {
    store,
    all<R>(query: Query<R>) {
      const {statement, parameters} = prepare(query)
      return statement.all(parameters) as R[]
    },
    get<R>(query: Query<R>) {
      const {statement, parameters} = prepare(query)
      return statement.get(parameters) as R | undefined
    },
    run(query) {
      const {statement, parameters} = prepare(query)
      return statement.reader ? statement.all(parameters).length : statement.run(parameters).changes
    },
    afterCommit(hook) {
      hooks.push(hook)
    },
  }
}
