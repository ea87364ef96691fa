import {z} from 'zod'
import {datetime, int} from './validate.js'

/** The query of every cursor list (src/store/paging.ts): `limit` bounds differ, cursors do not. */
export function pageSchema(maxLimit = 1000, defaultLimit = 100) {
  return z.object({
    limit: int(1, maxLimit).default(defaultLimit),
    createdBefore: datetime().optional(),
    createdAfter: datetime().optional(),
    updatedBefore: datetime().optional(),
    updatedAfter: datetime().optional(),
  })
}
