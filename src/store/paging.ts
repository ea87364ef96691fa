import {type SelectQueryBuilder, sql} from 'kysely'
import {nextTurn} from './turns.js'

/** The cursor parameters every list endpoint shares (timestamps already ISO 8601). */
export interface PageQuery {
  limit: number
  createdBefore?: string
  createdAfter?: string
  updatedBefore?: string
  updatedAfter?: string
}

export interface Page<T> {
  rows: T[]
  hasMore: boolean
}

type Sortable = 'created_at' | 'updated_at'

/**
 * Rows read per statement. A page of 1,000 geofences (1.7 MB of rows) read in one statement held
 * the event loop 20–100 ms; 50 rows take ~1 ms, and other requests are answered between reads.
 */
const CHUNK_ROWS = 50

/**
 * Applies the cursor bounds and a newest-first order on `sortBy`, fetching one row more than
 * `limit` so `hasMore` needs no COUNT. Tables must have `created_at` and `updated_at`.
 */
export async function fetchPage<DB, TB extends keyof DB, O>(
  query: SelectQueryBuilder<DB, TB, O>,
  page: PageQuery,
  sortBy: Sortable = 'updated_at',
): Promise<Page<O>> {
  let q = query as SelectQueryBuilder<any, any, O>
  if (page.createdBefore) q = q.where('created_at', '<', page.createdBefore)
  if (page.createdAfter) q = q.where('created_at', '>', page.createdAfter)
  if (page.updatedBefore) q = q.where('updated_at', '<', page.updatedBefore)
  if (page.updatedAfter) q = q.where('updated_at', '>', page.updatedAfter)
  const rows = await readNewestFirst(q, page.limit + 1, {sort: sortBy, id: 'id', rowSort: sortBy})
  const hasMore = rows.length > page.limit
  if (hasMore) rows.pop()
  return {rows, hasMore}
}

/** The columns a newest-first read is ordered by, as the query names them and as its rows carry them. */
export interface ReadOrder {
  sort: string
  id: string
  rowSort?: string
}

/**
 * Up to `count` rows of `query` ordered by (`sort`, `id`) descending, read CHUNK_ROWS at a time
 * with a keyset bound (the indexes serve row-value comparisons) and a turn of the event loop
 * between reads. Rows written between two reads show as they would between two pages.
 */
export async function readNewestFirst<O>(query: SelectQueryBuilder<any, any, O>, count: number, order: ReadOrder): Promise<O[]> {
  const rows: O[] = []
  const rowSort = order.rowSort ?? order.sort
  for (;;) {
    const want = Math.min(CHUNK_ROWS, count - rows.length)
    let q = query
    const last = rows.at(-1) as Record<string, unknown> | undefined
    if (last) q = q.where(sql<boolean>`(${sql.ref(order.sort)}, ${sql.ref(order.id)}) < (${last[rowSort]}, ${last.id})`)
    const chunk = await q.orderBy(order.sort as any, 'desc').orderBy(order.id as any, 'desc').limit(want).execute()
    for (const row of chunk) rows.push(row)
    if (chunk.length < want || rows.length >= count) return rows
    await nextTurn()
  }
}
