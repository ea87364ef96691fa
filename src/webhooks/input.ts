import {z} from 'zod'
import {EVENT_TYPE_STATEMENT, isEventType} from '../events/types.js'
import {bool, datetime, list, parse} from '../validate.js'
import type {NewWebhook} from './registry.js'
import {urlProblem} from './target.js'

const eventType = z.string().refine(isEventType, {message: EVENT_TYPE_STATEMENT})

/** A webhook to add: `allowPrivate` is the config's `webhooks.allowPrivate`. */
export function parseNewWebhook(input: unknown, allowPrivate: boolean): NewWebhook {
  const schema = z.object({
    url: z.string().superRefine((url, ctx) => {
      const problem = urlProblem(url, allowPrivate)
      if (problem) ctx.addIssue({code: 'custom', message: problem})
    }),
    types: list(eventType).optional(),
    batch: bool().optional(),
  })
  return parse(schema, input)
}

export const deliveryStatus = z.enum(['pending', 'failed', 'delivered', 'dead'])

/** `replay --since`: a date or ISO 8601 time. */
export const parseSince = (since: unknown): string => parse(z.object({since: datetime()}), {since}).since
