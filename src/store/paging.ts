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
 * `limit` so `hasMore` needs no COUNT (more only to finish a run of one timestamp, see `pageOf`).
 * Tables must have `created_at` and `updated_at`.
 */
export function fetchPage<DB, TB extends keyof DB, O>(query: SelectQueryBuilder<DB, TB, O>, page: PageQuery, sortBy: Sortable = 'updated_at'): Page<O> {
  return pageOf(pageRows(query, page, sortBy), page.limit, sortBy)
}

/** The rows a page may take, newest first by `order`: `limit` + 1 read first, the rest only if `pageOf` asks (to finish a run). */
export const pageReads = <O>(query: SelectQueryBuilder<any, any, O>, limit: number, order: ReadOrder) =>
  newestFirst(query, Infinity, order, CHUNK_ROWS, limit + 1)

const pageRows = <O>(query: SelectQueryBuilder<any, any, O>, page: PageQuery, sortBy: Sortable) =>
  pageReads(withinCursors(query, page), page.limit, {sort: sortBy, id: 'id'})

/**
 * `fetchPage` over queries whose rows never overlap, each read newest first through its own index
 * and merged. Their OR in one query is no substitute: with no statistics SQLite walks the
 * `sortBy` index over the whole table and tests each row (0.35 s for a filter on events among 200k).
 */
export function fetchMergedPage<O>(queries: Array<SelectQueryBuilder<any, any, O>>, page: PageQuery, sortBy: Sortable): Page<O> {
  if (queries.length === 1) return fetchPage(queries[0], page, sortBy)
  return pageOf(mergedNewestFirst(queries.map((q) => pageRows(q, page, sortBy)), sortBy), page.limit, sortBy)
}

/**
 * Reads whose rows never overlap, each newest first by (`sortBy`, `id`), as one such read: a
 * k-way merge that asks each read for its next chunk only once its rows are used up.
 */
export async function* mergedNewestFirst<O>(reads: Array<AsyncIterable<O[]>>, sortBy: string): AsyncGenerator<O[]> {
  const heads = reads.map((read) => ({rows: [] as Array<O & Record<string, unknown>>, at: 0, next: read[Symbol.asyncIterator]() as AsyncIterator<O[]>}))
  // a head whose rows are used up reads its next chunk; one with none left is dropped
  const refill = async (head: (typeof heads)[number]) => {
    const next = await head.next.next()
    head.rows = next.done ? [] : (next.value as typeof head.rows)
    head.at = 0
    return !next.done && head.rows.length > 0
  }
  const live = (await Promise.all(heads.map(refill))).flatMap((ok, i) => (ok ? [heads[i]] : []))
  let out: O[] = []
  while (live.length) {
    let best = 0
    for (let i = 1; i < live.length; i++) {
      const a = live[i].rows[live[i].at], b = live[best].rows[live[best].at]
      const x = a[sortBy] as string, y = b[sortBy] as string
      if (x > y || (x === y && (a.id as string) > (b.id as string))) best = i
    }
    const head = live[best]
    out.push(head.rows[head.at++])
    if (out.length === CHUNK_ROWS) {
      yield out
      out = []
    }
    if (head.at === head.rows.length && !(await refill(head))) live.splice(best, 1)
  }
  if (out.length) yield out
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

/**
 * A page of the first `limit` rows of `chunks` (newest first by `sortBy`, the timestamp the next
 * page's cursor names), reading one more to know `hasMore`. A page never ends inside a run of rows
 * sharing one timestamp: the cursor would skip the run's rest (a track's events share their
 * `createdAt`, users tracked in one batch their `updatedAt`). Such a run ends the page before it
 * when rows precede it on the page, else it fills the page whole, longer than `limit`.
 */
export function pageOf<T>(chunks: AsyncIterable<T[]>, limit: number, sortBy: Sortable): Page<T> {
  const page: {hasMore: boolean; rows: AsyncIterable<T[]>} = {hasMore: false, rows: firstRows()}
  const at = (row: T) => (row as Record<string, unknown>)[sortBy]
  async function* firstRows(): AsyncGenerator<T[]> {
    let count = 0
    // the rows of the last timestamp read, held back until a row of an older one shows where it ends
    let run: T[] = []
    for await (const chunk of chunks) {
      const out: T[] = []
      for (const row of chunk) {
        if (run.length && at(row) !== at(run[0])) {
          if (count && count + run.length > limit) {
            page.hasMore = true
            break
          }
          out.push(...run)
          count += run.length
          run = []
        }
        if (count >= limit) {
          page.hasMore = true
          break
        }
        run.push(row)
        // rows precede a run too long for the page: it ends before the run
        if (count && count + run.length > limit) {
          page.hasMore = true
          break
        }
      }
      if (page.hasMore) {
        if (out.length) yield out
        return
      }
      if (out.length) yield out
    }
    if (run.length) yield run
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
 * reads show as they would between two pages. The reads stop first at `firstRows` (a page's rows
 * and one more), so a page that needs no more reads no more.
 */
export async function* newestFirst<O>(query: SelectQueryBuilder<any, any, O>, count: number, order: ReadOrder, chunkRows = CHUNK_ROWS, firstRows = count): AsyncGenerator<O[]> {
  const rowSort = order.rowSort ?? order.sort
  let last: Record<string, unknown> | undefined
  for (let read = 0; read < count;) {
    if (last) await nextTurn()
    const want = Math.min(chunkRows, count - read, read < firstRows ? firstRows - read : chunkRows)
    let q = query
    if (last) q = q.where(sql<boolean>`(${sql.ref(order.sort)}, ${sql.ref(order.id)}) < (${last[rowSort]}, ${last.id})`)
    const chunk = await q.orderBy(order.sort as any, 'desc').orderBy(order.id as any, 'desc').limit(want).execute()
    if (chunk.length) yield chunk
    if (chunk.length < want) return
    read += chunk.length
    last = chunk.at(-1) as Record<string, unknown>
  }
}
