import {z} from 'zod'
import {pageSchema} from '../paging-input.js'
import {datetime, list, metadata, num, TEXT_MAX} from '../validate.js'

/** `POST /events`: a conversion. */
export const conversionSchema = z.object({
  name: z.string().max(TEXT_MAX.id).regex(/^[A-Za-z0-9_]+$/, {message: 'only letters, digits and underscores'}),
  metadata: metadata(32).nullish(),
  revenue: num().optional(),
  userId: z.string().max(TEXT_MAX.id).nullish(),
  deviceId: z.string().max(TEXT_MAX.id).nullish(),
  installId: z.string().max(TEXT_MAX.id).nullish(),
  createdAt: datetime().optional(),
  duration: num().pipe(z.number().min(0)).optional(),
})

export const eventListQuery = pageSchema(1000, 100).pick({limit: true, createdBefore: true, createdAfter: true}).extend({
  types: list(z.string()).optional(),
  userId: z.string().optional(),
})

/** `accept`/`reject`, or the hosted product's 1/-1. */
const VERDICTS: Record<string, string> = {'1': 'accept', '-1': 'reject'}

/** `PUT /events/:id/verification`. */
export const verificationSchema = z.object({
  verification: z.preprocess((v) => VERDICTS[String(v)] ?? v, z.enum(['accept', 'reject'])),
  verifiedPlaceId: z.string().min(1).max(TEXT_MAX.id).optional(),
}).refine((b) => b.verifiedPlaceId === undefined || b.verification === 'accept', {
  path: ['verifiedPlaceId'],
  message: 'only with verification accept',
})
