import {statSync} from 'node:fs'
import {CompiledQuery} from 'kysely'
import {describe, expect, it} from 'vitest'
import {CHECKPOINT_EVERY_MS, startCheckpointer} from '../../src/store/checkpointer.js'
import {write} from '../../src/store/write.js'
import {freshStore} from '../helpers.js'

const fresh = freshStore()
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
const PAGES = 2000

describe('the checkpointer', () => {
  it('copies committed pages into the database file from its own thread: the writer never checkpoints', async () => {
    const {store} = fresh
    const checkpointer = startCheckpointer(store)
    const size = () => statSync(store.file).size
    // the thread's first checkpoints copy the migrations' pages: wait until the file is still
    let before = -1
    while (before !== size()) {
      before = size()
      await sleep(3 * CHECKPOINT_EVERY_MS)
    }
    // 2,000 pages of new rows: past SQLite's 1,000-page automatic checkpoint, which the committing
    // connection would have run itself, growing the file before the commit returned
    write(store, (tx) => {
      tx.run(CompiledQuery.raw('CREATE TABLE bulk (v BLOB)'))
      for (let i = 0; i < PAGES; i++) tx.run(CompiledQuery.raw('INSERT INTO bulk VALUES (randomblob(4000))'))
    })
    expect(size()).toBeLessThan(before + PAGES * 4096)
    for (let waited = 0; size() < before + PAGES * 4096 && waited < 5000; waited += 20) await sleep(20)
    expect(size()).toBeGreaterThanOrEqual(before + PAGES * 4096)
    await checkpointer.stop()
    expect(store.sqlite.pragma('wal_autocheckpoint', {simple: true})).toBe(1000)
  })
})
