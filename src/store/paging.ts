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
  /** The page's rows in list order, CHUNK_ROWS a statement, read only as they are consumed. */
  rows: AsyncIterable<T[]>
  /** Once `rows` is consumed: whether rows past the page exist. */
  readonly hasMore: boolean
}

type Sortable = 'created_at' | 'updated_at'

/**
 * Rows read per statement. A page of 1,000 geofences (1.7 MB of rows) read in one statement held
 * the event loop 20–100 ms; 50 rows take ~1 ms, and other requests are answered between reads.
 */
const CHUNK_ROWS = 50

/**
 * Applies the cursor bounds and a newest-first order on `sortBy`, reading one row more than
 * `limit` so `hasMore` needs no COUNT. Tables must have `created_at` and `updated_at`.
 */
export function fetchPage<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, page: PageQuery, sortBy: Sortable = 'updated_at'): Page<O> {
  return pageOf(pageRows(query, page, sortBy), page.limit)
}

/** The rows a page of `query` may take: within its cursors, newest first, one more than `limit`. */
const pageRows = <O>(query: SelectQueryBuilder<any, any, O>, page: PageQuery, sortBy: Sortable) =>
  newestFirst(withinCursors(query, page), page.limit + 1, {sort: sortBy, id: 'id'})

/**
 * `fetchPage` over queries whose rows never overlap, each read newest first through its own index
 * and merged. Their OR in one query is no substitute: with no statistics SQLite walks the
 * `sortBy` index over the whole table and tests each row (0.35 s for a filter on events among 200k).
 */
export function fetchMergedPage<O>(queries: Array<SelectQueryBuilder<any, any, O>>, page: PageQuery, sortBy: Sortable): Page<O> {
  if (queries.length === 1) return fetchPage(queries[0], page, sortBy)
  return pageOf(mergedNewestFirst(queries.map((q) => pageRows(q, page, sortBy)), sortBy), page.limit)
}

/** Reads whose rows never overlap, each newest first by (`sortBy`, `id`), as one such read. */
export async function* mergedNewestFirst<O>(reads: Array<AsyncIterable<O[]>>, sortBy: string): AsyncGenerator<O[]> {
  const rows = (await Promise.all(reads.map(allOf))).flat() as Array<O & Record<string, unknown>>
  rows.sort((a, b) => {
    const x = a[sortBy] as string, y = b[sortBy] as string
    return x !== y ? (x < y ? 1 : -1) : (a.id as string) < (b.id as string) ? 1 : -1
  })
  yield* inChunks(rows)
}

/** `query` bounded by the page's `createdBefore`/`createdAfter`/`updatedBefore`/`updatedAfter`. */
export function withinCursors<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, page: PageQuery): SelectQueryBuilder<DB, TB, O> {
  let q = query as SelectQueryBuilder<any, any, O>
  if (page.createdBefore) q = q.where('created_at', '<', page.createdBefore)
  if (page.createdAfter) q = q.where('created_at', '>', page.createdAfter)
  if (page.updatedBefore) q = q.where('updated_at', '<', page.updatedBefore)
  if (page.updatedAfter) q = q.where('updated_at', '>', page.updatedAfter)
  return q as SelectQueryBuilder<DB, TB, O>
}

/** A page of the first `limit` rows of `chunks`, which reads up to one more to know `hasMore`. */
export function pageOf<T>(chunks: AsyncIterable<T[]>, limit: number): Page<T> {
  const page: {hasMore: boolean; rows: AsyncIterable<T[]>} = {hasMore: false, rows: firstRows()}
  async function* firstRows(): AsyncGenerator<T[]> {
    let count = 0
    for await (const chunk of chunks) {
      const room = limit - count
      page.hasMore = chunk.length > room
      const kept = page.hasMore ? chunk.slice(0, room) : chunk
      count += kept.length
      if (kept.length) yield kept
      if (page.hasMore) return
    }
  }
  return page
}

/** `page` with each row made into another as it is read (`hasMore` as `page` knows it). */
export function mapPage<T, U>(page: Page<T>, fn: (row: T) => U): Page<U> {
  return {
    rows: (async function* () {
      for await (const chunk of page.rows) yield chunk.map(fn)
    })(),
    get hasMore() {
      return page.hasMore
    },
  }
}

/** `rows` (already in order) as a page's chunks. */
export async function* inChunks<T>(rows: T[]): AsyncGenerator<T[]> {
  for (let i = 0; i < rows.length; i += CHUNK_ROWS) yield rows.slice(i, i + CHUNK_ROWS)
}

/** The columns a newest-first read is ordered by, as the query names them and as its rows carry them. */
export interface ReadOrder {
  sort: string
  id: string
  rowSort?: string
}

/**
 * Up to `count` rows of `query` ordered by (`sort`, `id`) descending, read `chunkRows` (default
 * CHUNK_ROWS) at a time with a keyset bound (the indexes serve row-value comparisons), a turn of
 * the event loop between reads, and only as the consumer asks for them. Rows written between two
 * reads show as they would between two pages.
 */
export async function* newestFirst<O>(query: SelectQueryBuilder<any, any, O>, count: number, order: ReadOrder, chunkRows = CHUNK_ROWS): AsyncGenerator<O[]> {
  const rowSort = order.rowSort ?? order.sort
  let last: Record<string, unknown> | undefined
  for (let read = 0; read < count;) {
    if (last) await nextTurn()
    const want = Math.min(chunkRows, count - read)
    let q = query
    if (last) q = q.where(sql<boolean>`(${sql.ref(order.sort)}, ${sql.ref(order.id)}) < (${last[rowSort]}, ${last.id})`)
    const chunk = await q.orderBy(order.sort as any, 'desc').orderBy(order.id as any, 'desc').limit(want).execute()
    if (chunk.length) yield chunk
    if (chunk.length < want) return
    read += chunk.length
    last = chunk.at(-1) as Record<string, unknown>
  }
}

/** Every row of `chunks`. */
export async function allOf<T>(chunks: AsyncIterable<T[]>): Promise<T[]> {
  const rows: T[] = []
  for await (const chunk of chunks) rows.push(...chunk)
  return rows
}
