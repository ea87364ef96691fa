import type {SelectQueryBuilder} from 'kysely'

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
  const rows = await q.orderBy(sortBy, 'desc').orderBy('id', 'desc').limit(page.limit + 1).execute()
  const hasMore = rows.length > page.limit
  if (hasMore) rows.pop()
  return {rows, hasMore}
}
