import type {ServerResponse} from 'node:http'
import type {RateLimitGroup} from '../../config/index.js'
import {refuse} from '../../errors.js'
import type {ApiRequest} from '../request.js'

/**
 * Per-second limits per key (the spec's table, configurable), counted after authentication and
 * before the handler, so a refused request does no work. Track counts per key and device; IP
 * geocode per key and device or IP; config per device or IP alone (compat). Headers:
 * X-RateLimit-Limit/-Remaining/-Reset (epoch s), and Retry-After on 429.
 *
 * Windows are whole wall-clock seconds; the counts of one second live in one Map that is dropped
 * when the next second starts, so memory never outgrows one second of distinct callers. Buckets
 * are key ids, never keys. Written by hand: express-rate-limit's asynchronous store cost about
 * 11 % of a trivial request's CPU.
 */
export function limiterFor(group: RateLimitGroup, perSecond: number): (req: ApiRequest, res: ServerResponse) => void {
  let second = 0
  let counts = new Map<string, number>()
  const limit = String(perSecond)
  return (req, res) => {
    const now = Math.floor(Date.now() / 1000)
    if (now !== second) {
      second = now
      counts = new Map()
    }
    const bucket = bucketOf(group, req)
    const used = (counts.get(bucket) ?? 0) + 1
    counts.set(bucket, used)
    res.setHeader('X-RateLimit-Limit', limit)
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, perSecond - used)))
    res.setHeader('X-RateLimit-Reset', String(second + 1))
    if (used > perSecond) throw refuse.rateLimited(1)
  }
}

function bucketOf(group: RateLimitGroup, req: ApiRequest): string {
  // every browser of an app shares one publishable key, so config counts per device, never per key
  if (group === 'config') return clientOf(req)
  const who = req.auth.id
  if (group === 'track') return `${who}:${deviceOf(req) ?? ''}`
  if (group === 'ipGeocode') return `${who}:${deviceOf(req) ?? req.ip}`
  return who
}

/** The device a request names before its body is read: the `X-Radar-Device-Id` header, else `deviceId` in the query. */
function deviceBeforeBody(req: ApiRequest): string | undefined {
  const header = req.headers['x-radar-device-id']
  if (typeof header === 'string' && header !== '') return header
  const {deviceId} = req.query
  return typeof deviceId === 'string' && deviceId !== '' ? deviceId : undefined
}

function deviceOf(req: ApiRequest): string | undefined {
  const before = deviceBeforeBody(req)
  if (before !== undefined) return before
  const body = req.body as Record<string, unknown> | undefined
  return body && typeof body.deviceId === 'string' ? body.deviceId : undefined
}

/**
 * True when the request's bucket can only be known from its body: limits per key and device
 * (track, IP geocode) whose device is in neither the header nor the query. Every other request is
 * limited before its body is read.
 */
export function needsBody(group: RateLimitGroup, req: ApiRequest): boolean {
  return (group === 'track' || group === 'ipGeocode') && deviceBeforeBody(req) === undefined
}

/** `GET /v1/config`'s caller: `deviceId` or `installId` in the query, else the client IP. */
function clientOf(req: ApiRequest): string {
  const {deviceId, installId} = req.query
  if (typeof deviceId === 'string' && deviceId !== '') return `device:${deviceId}`
  if (typeof installId === 'string' && installId !== '') return `install:${installId}`
  return `ip:${req.ip}`
}
