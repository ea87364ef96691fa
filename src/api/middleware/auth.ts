import {refuse} from '../../errors.js'
import {authenticateKey, type KeyIdentity} from '../../project/keys.js'
import {getSettings} from '../../project/settings.js'
import type {UsageMeter} from '../../project/usage.js'
import type {Store} from '../../store/db.js'
import type {ApiRequest} from '../request.js'

/** P: publishable or secret key; S: secret key only. */
export type AuthLevel = 'P' | 'S'

/** Where a route reads its key from, and that place as a 401 names it. */
export interface KeySource {
  (req: Pick<ApiRequest, 'headers' | 'query'>): string | undefined
  readonly where: string
}

/** The whole `Authorization` value is the key (no scheme word). */
export const keyOf: KeySource = Object.assign((req: Pick<ApiRequest, 'headers'>) => req.headers.authorization?.trim() || undefined, {where: 'the Authorization header'})

/** The key in query parameter `name` (static maps: `publishableKey`). */
export const queryKey = (name: string): KeySource =>
  Object.assign((req: Pick<ApiRequest, 'query'>) => {
    const v = req.query[name]
    return typeof v === 'string' && v.trim() !== '' ? v.trim() : undefined
  }, {where: `the ${name} query parameter`})

/** The caller's identity at the route's level, or the 401/402/403 of the spec, or 451 for a blocked country (DECISIONS). */
export function authenticate(store: Store, usage: UsageMeter, level: AuthLevel, key: string | undefined, countryOf: () => string | null, where: string): KeyIdentity {
  const identity = key ? authenticateKey(store, key) : null
  if (!identity) throw refuse.unauthorized(where)
  if (level === 'S' && identity.type !== 'secret') throw refuse.forbidden()
  const settings = getSettings(store, identity.live)
  if (settings['project.disabled']) throw refuse.projectDisabled()
  const quota = settings['project.monthlyRequestQuota']
  if (quota > 0 && usage.used(identity.live) >= quota) throw refuse.quotaSpent()
  const blocked = settings['security.blockedCountries']
  if (blocked.length) {
    const cc = countryOf()
    if (cc && blocked.some((c) => c.toUpperCase() === cc)) throw refuse.countryBlocked()
  }
  return identity
}
