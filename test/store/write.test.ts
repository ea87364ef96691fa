import {readdirSync, readFileSync, statSync} from 'node:fs'
import path from 'node:path'
import Database from 'better-sqlite3'
import {Kysely, SqliteDialect, sql} from 'kysely'
import {beforeEach, describe, expect, it} from 'vitest'
import type {Store} from '../../src/store/db.js'
import {BUSY_TIMEOUT_MS, write, writeGrouped} from '../../src/store/write.js'
import {freshStore} from '../helpers.js'

const fresh = freshStore()
let store: Store
let dir: string
beforeEach(() => {
  ;({store, dir} = fresh)
})

const count = () => store.sqlite.prepare('SELECT count(*) FROM usage').pluck().get() as number
const insert = (month: string) => store.db.insertInto('usage').values({live: 0, month, requests: 1})

describe('the old shape: a kysely transaction and a synchronous one on one connection', () => {
  it('nests them, so the synchronous commit is rolled back with the other (the hazard)', async () => {
    const sqlite = new Database(path.join(dir, 'old-shape.db'))
    sqlite.exec('CREATE TABLE t (v TEXT)')
    const db = new Kysely<{t: {v: string}}>({dialect: new SqliteDialect({database: sqlite})})
    const flush = sqlite.transaction(() => sqlite.prepare("INSERT INTO t VALUES ('usage flush')").run())
    await db.transaction().execute(async (trx) => {
      await trx.insertInto('t').values({v: 'request'}).execute()
      flush() // a timer firing while the request's transaction awaits: it becomes a savepoint
      throw new Error('the request fails')
    }).catch(() => undefined)
    // the flush "committed", yet it is gone with the failed request
    expect(sqlite.prepare('SELECT count(*) FROM t').pluck().get()).toBe(0)
    await db.destroy()
  })
})

describe('write: the one write path', () => {
  it('commits when the function returns and rolls back when it throws', () => {
    write(store, (tx) => tx.run(insert('2026-01')))
    expect(() => write(store, (tx) => {
      tx.run(insert('2026-02'))
      throw new Error('refused')
    })).toThrow('refused')
    expect(count()).toBe(1)
  })

  it('leaves kysely no way to write or to open a transaction', async () => {
    await expect(store.db.transaction().execute(async () => undefined)).rejects.toThrow(/write\(\)/)
    await expect(insert('2026-03').execute()).rejects.toThrow(/write\(\)/)
    await expect(sql`DELETE FROM usage`.execute(store.db)).rejects.toThrow(/write\(\)/)
    expect(count()).toBe(0)
  })

  it('refuses a write inside a write, and an asynchronous function, changing nothing', () => {
    expect(() => write(store, (tx) => {
      tx.run(insert('2026-04'))
      write(store, (inner) => inner.run(insert('2026-05')))
    })).toThrow(/inside a transaction/)
    expect(() => write(store, async (tx) => tx.run(insert('2026-06')))).toThrow(/synchronous/)
    expect(count()).toBe(0)
  })

  it('runs after-commit hooks after the commit, never after a rollback', () => {
    const seen: number[] = []
    write(store, (tx) => {
      tx.run(insert('2026-07'))
      tx.afterCommit(() => seen.push(count()))
    })
    expect(() => write(store, (tx) => {
      tx.afterCommit(() => seen.push(-1))
      throw new Error('no')
    })).toThrow()
    expect(seen).toEqual([1])
  })
})

describe('writeGrouped: group commit', () => {
  it('commits the writes of one turn together; one that throws rolls back alone', async () => {
    const results = await Promise.allSettled([
      writeGrouped(store, (tx) => tx.run(insert('2027-01'))),
      writeGrouped(store, (tx) => {
        tx.run(insert('2027-02'))
        throw new Error('bad row')
      }),
      writeGrouped(store, (tx) => tx.run(insert('2027-03'))),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect(store.sqlite.prepare('SELECT month FROM usage ORDER BY month').pluck().all()).toEqual(['2027-01', '2027-03'])
  })

  it('runs a write that asked for no savepoint once when its batch commits', async () => {
    let runs = 0
    await Promise.all([
      writeGrouped(store, (tx) => (runs++, tx.run(insert('2029-01'))), {savepoint: false}),
      writeGrouped(store, (tx) => tx.run(insert('2029-02'))),
    ])
    expect(runs).toBe(1)
    expect(store.sqlite.prepare('SELECT month FROM usage ORDER BY month').pluck().all()).toEqual(['2029-01', '2029-02'])
  })

  it('rolls the batch back when a write without a savepoint throws, and runs it again with each write alone', async () => {
    const runs = {before: 0, after: 0}
    const hooks: string[] = []
    const results = await Promise.allSettled([
      writeGrouped(store, (tx) => {
        runs.before++
        tx.afterCommit(() => hooks.push('before'))
        return tx.run(insert('2029-03'))
      }, {savepoint: false}),
      writeGrouped(store, (tx) => {
        tx.run(insert('2029-04'))
        throw new Error('disk on fire')
      }, {savepoint: false}),
      writeGrouped(store, (tx) => (runs.after++, tx.run(insert('2029-05')))),
    ])
    expect(results.map((r) => r.status)).toEqual(['fulfilled', 'rejected', 'fulfilled'])
    expect((results[1] as PromiseRejectedResult).reason.message).toBe('disk on fire')
    expect(store.sqlite.prepare('SELECT month FROM usage ORDER BY month').pluck().all()).toEqual(['2029-03', '2029-05'])
    // the first attempt ran the writes before the throw only, and its hooks never run
    expect(runs).toEqual({before: 2, after: 1})
    expect(hooks).toEqual(['before'])
  })

  it('answers each writer only after its commit is on disk', async () => {
    const pending = writeGrouped(store, (tx) => tx.run(insert('2027-04')))
    // nothing is written before the turn ends
    expect(count()).toBe(0)
    await pending
    const other = new Database(store.file, {readonly: true})
    expect(other.prepare('SELECT count(*) FROM usage').pluck().get()).toBe(1)
    other.close()
  })
})

describe('writeGrouped while another connection holds the write lock', () => {
  it('waits in the event loop, joins later writes to the batch, and commits once the lock is free', async () => {
    const other = new Database(store.file)
    other.exec('BEGIN IMMEDIATE')
    let ticks = 0
    const ticking = setInterval(() => ticks++, 5)
    const first = writeGrouped(store, (tx) => tx.run(insert('2028-01')))
    setTimeout(() => void writeGrouped(store, (tx) => tx.run(insert('2028-02'))), 50)
    const started = Date.now()
    await new Promise((resolve) => setTimeout(resolve, 300))
    // SQLite's busy handler would have slept the process through the lock: no timer would have run
    expect(ticks).toBeGreaterThan(20)
    expect(count()).toBe(0)
    other.exec('COMMIT')
    await first
    clearInterval(ticking)
    expect(Date.now() - started).toBeGreaterThanOrEqual(300)
    await new Promise((resolve) => setTimeout(resolve, 20))
    expect(store.sqlite.prepare('SELECT month FROM usage ORDER BY month').pluck().all()).toEqual(['2028-01', '2028-02'])
    other.close()
  })

  it('fails the batch with SQLITE_BUSY after the busy timeout, as a blocking write would, writing nothing', async () => {
    const other = new Database(store.file)
    other.exec('BEGIN IMMEDIATE')
    const started = Date.now()
    const error = await writeGrouped(store, (tx) => tx.run(insert('2028-03'))).catch((e: unknown) => e)
    expect((error as {code?: string}).code).toBe('SQLITE_BUSY')
    expect(Date.now() - started).toBeGreaterThanOrEqual(BUSY_TIMEOUT_MS)
    other.exec('ROLLBACK')
    other.close()
    // the connection waits again as before for the writes that do not group
    expect(store.sqlite.pragma('busy_timeout', {simple: true})).toBe(BUSY_TIMEOUT_MS)
    expect(count()).toBe(0)
  }, 15_000)
})

describe('the tree', () => {
  // The map importer (src/osm) writes its own build file, never the operational store.
  it('opens transactions on the store only in src/store/write.ts', () => {
    const offenders: string[] = []
    const walk = (d: string) => {
      for (const name of readdirSync(d)) {
        const file = path.join(d, name)
        // map.db builds (the importer and its derived stages) are not the operational store
        if (file === path.join('src', 'osm') || file === path.join('src', 'maps', 'stage.ts')) continue
        if (statSync(file).isDirectory()) walk(file)
        else if (file.endsWith('.ts') && file !== path.join('src', 'store', 'write.ts') && !file.includes(`${path.sep}migrations${path.sep}`)) {
          const text = readFileSync(file, 'utf8')
          if (/\.transaction\(|\bBEGIN\b|\bSAVEPOINT\b/.test(text)) offenders.push(file)
        }
      }
    }
    walk('src')
    expect(offenders).toEqual([])
  })
})
