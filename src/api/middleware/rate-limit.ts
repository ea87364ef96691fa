import {createHash} from 'node:crypto'
import type {Request, RequestHandler} from 'express'
import {rateLimit} from 'express-rate-limit'
import type {RateLimitGroup} from '../../config/index.js'
import {errors} from '../errors.js'
import {keyOf} from './auth.js'

/**
 * Per-second limits per key (the spec's table, configurable), counted before authentication so
 * that a refused request does no work at all. Track counts per key and device; IP geocode per
 * device or IP. Headers: X-RateLimit-Limit/-Remaining/-Reset (epoch s), and Retry-After on 429.
 */
export function limiterFor(group: RateLimitGroup, perSecond: number, readKey: typeof keyOf = keyOf): RequestHandler {
  return rateLimit({
    windowMs: 1000,
    limit: perSecond,
    legacyHeaders: true,
    standardHeaders: false,
    validate: false,
    keyGenerator: (req) => bucket(group, req, readKey),
    handler: (_req, _res, next, options) => {
      next(errors.rateLimited(Math.ceil(options.windowMs / 1000)))
    },
  })
}

function bucket(group: RateLimitGroup, req: Request, readKey: typeof keyOf): string {
  const key = readKey(req)
  const who = key ? createHash('sha1').update(key).digest('base64url') : `ip:${req.ip}`
  if (group === 'track') return `${group}:${who}:${deviceOf(req) ?? ''}`
  if (group === 'ipGeocode') return `${group}:${who}:${deviceOf(req) ?? req.ip}`
  return `${group}:${who}`
}

function deviceOf(req: Request): string | undefined {
  const body = req.body as Record<string, unknown> | undefined
  const fromBody = body && typeof body.deviceId === 'string' ? body.deviceId : undefined
  return fromBody ?? req.get('x-radar-device-id') ?? undefined
}
