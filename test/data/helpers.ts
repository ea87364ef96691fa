import {sql} from 'kysely'
import type {Database} from '../../src/store/schema.js'
import type {TestServer} from '../helpers.js'

/** Every row of the tables, for asserting that a refused request changed nothing. */
export async function snapshot(s: TestServer, ...tables: Array<keyof Database>): Promise<unknown[]> {
  const out: unknown[] = []
  for (const table of tables) out.push(await s.store.db.selectFrom(table).selectAll().orderBy(sql`rowid`).execute())
  return out
}
