import {createHash} from 'node:crypto'
import type {Request, RequestHandler} from 'express'
import type {RateLimitGroup} from '../../config/index.js'
import {errors} from '../errors.js'
import {keyOf} from './auth.js'

/**
 * Per-second limits per key (the spec's table, configurable), counted before authentication so a
 * refused request does no work. Track counts per key and device; IP geocode per key and device or
 * IP. Headers: X-RateLimit-Limit/-Remaining/-Reset (epoch s), and Retry-After on 429.
 *
 * Windows are whole wall-clock seconds; the counts of one second live in one Map that is dropped
 * when the next second starts, so memory never outgrows one second of distinct callers. Written by
 * hand because express-rate-limit's asynchronous store cost about 11 % of a trivial request's CPU.
 */
export function limiterFor(group: RateLimitGroup, perSecond: number, readKey: typeof keyOf = keyOf): RequestHandler {
  let second = 0
  let counts = new Map<string, number>()
  const limit = String(perSecond)
  return (req, res, next) => {
    const now = Math.floor(Date.now() / 1000)
    if (now !== second) {
      second = now
      counts = new Map()
    }
    const bucket = bucketOf(group, req, readKey)
    const used = (counts.get(bucket) ?? 0) + 1
    counts.set(bucket, used)
    res.setHeader('X-RateLimit-Limit', limit)
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, perSecond - used)))
    res.setHeader('X-RateLimit-Reset', String(second + 1))
    if (used > perSecond) {
      res.setHeader('Retry-After', '1')
      return next(errors.rateLimited(1))
    }
    next()
  }
}

function bucketOf(group: RateLimitGroup, req: Request, readKey: typeof keyOf): string {
  const key = readKey(req)
  // hashed so that the map never holds a key in clear
  const who = key ? createHash('sha1').update(key).digest('base64url') : `ip:${req.ip}`
  if (group === 'track') return `${who}:${deviceOf(req) ?? ''}`
  if (group === 'ipGeocode') return `${who}:${deviceOf(req) ?? req.ip}`
  return who
}

function deviceOf(req: Request): string | undefined {
  const body = req.body as Record<string, unknown> | undefined
  const fromBody = body && typeof body.deviceId === 'string' ? body.deviceId : undefined
  return fromBody ?? req.get('x-radar-device-id') ?? undefined
}
