import {z} from 'zod'
import {pageSchema} from '../paging-input.js'
import {list, TEXT_MAX} from '../validate.js'

export const userListQuery = pageSchema(1000, 100).pick({limit: true, updatedBefore: true, updatedAfter: true})

/** `POST /users/refresh`. */
export const refreshSchema = z.object({
  userIds: list(z.string().min(1).max(TEXT_MAX.id)).pipe(z.array(z.string()).min(1).max(10)),
  type: z.enum(['silentPush', 'pushExtension']).default('silentPush'),
})
