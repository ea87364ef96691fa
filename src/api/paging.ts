import {z} from 'zod'
import type {PageQuery} from '../store/paging.js'
import {datetime, int, parse} from './validate.js'

/** The query schema shared by list endpoints: `limit` bounds differ, cursors do not. */
export function pageSchema(maxLimit = 1000, defaultLimit = 100) {
  return z.object({
    limit: int(1, maxLimit).default(defaultLimit),
    createdBefore: datetime().optional(),
    createdAfter: datetime().optional(),
    updatedBefore: datetime().optional(),
    updatedAfter: datetime().optional(),
  })
}

export function parsePage(query: unknown, maxLimit = 1000, defaultLimit = 100): PageQuery {
  return parse(pageSchema(maxLimit, defaultLimit), query)
}

/** `{meta: {code: 200, hasMore}, [name]: items}` */
export function pageBody<T>(name: string, items: T[], hasMore: boolean) {
  return {meta: {code: 200, hasMore}, [name]: items}
}
