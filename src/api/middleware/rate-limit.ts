import type {ServerResponse} from 'node:http'
import type {RateLimitGroup} from '../../config/index.js'
import {refuse} from '../../errors.js'
import {trackDeviceOf} from '../../tracking/input.js'
import type {ApiRequest} from '../request.js'

/**
 * Per-second limits per key (the spec's table, configurable), counted after authentication and
 * before the handler, so a refused request does no work. Track counts per key and the device the
 * track is stored under (its body's `deviceId`, so after the body is read); IP geocode per key and
 * device or IP; config per device or IP alone (compat). Headers: X-RateLimit-Limit/-Remaining/-Reset
 * (epoch s), and Retry-After on 429.
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
    const bucket = bucketOf(group, req)
    // a track naming no usable device is refused by validation; it has no device to count against
    if (bucket === undefined) return
    const now = Math.floor(Date.now() / 1000)
    if (now !== second) {
      second = now
      counts = new Map()
    }
    const used = (counts.get(bucket) ?? 0) + 1
    counts.set(bucket, used)
    res.setHeader('X-RateLimit-Limit', limit)
    res.setHeader('X-RateLimit-Remaining', String(Math.max(0, perSecond - used)))
    res.setHeader('X-RateLimit-Reset', String(second + 1))
    if (used > perSecond) throw refuse.rateLimited(1)
  }
}

function bucketOf(group: RateLimitGroup, req: ApiRequest): string | undefined {
  // every browser of an app shares one publishable key, so config counts per device, never per key
  if (group === 'config') return clientOf(req)
  const who = req.auth.id
  if (group === 'track') {
    const device = trackDeviceOf(req.body)
    return device === undefined ? undefined : `${who}:${device}`
  }
  if (group === 'ipGeocode') return `${who}:${deviceOfHeaders(req) ?? req.ip}`
  return who
}

/** The device a GET names (IP geocode has no body): the `X-Radar-Device-Id` header, else `deviceId` in the query. */
function deviceOfHeaders(req: ApiRequest): string | undefined {
  const header = req.headers['x-radar-device-id']
  if (typeof header === 'string' && header !== '') return header
  const {deviceId} = req.query
  return typeof deviceId === 'string' && deviceId !== '' ? deviceId : undefined
}

/**
 * True when the request's bucket is known only from its body: track's device is the one its body
 * names, whatever a header or the query say. Every other request is limited before its body is read.
 */
export function needsBody(group: RateLimitGroup): boolean {
  return group === 'track'
}

/** `GET /v1/config`'s caller: `deviceId` or `installId` in the query, else the client IP. */
function clientOf(req: ApiRequest): string {
  const {deviceId, installId} = req.query
  if (typeof deviceId === 'string' && deviceId !== '') return `device:${deviceId}`
  if (typeof installId === 'string' && installId !== '') return `install:${installId}`
  return `ip:${req.ip}`
}
