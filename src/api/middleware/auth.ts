import type {RequestHandler} from 'express'
import {authenticateKey, type KeyIdentity} from '../../project/keys.js'
import {getSettings} from '../../project/settings.js'
import type {Store} from '../../store/db.js'
import {errors} from '../errors.js'

/** P: publishable or secret key; S: secret key only. */
export type AuthLevel = 'P' | 'S'

declare module 'express-serve-static-core' {
  interface Locals {
    auth: KeyIdentity
    requestId: string
  }
}

/** The whole `Authorization` value is the key (no scheme word); static maps carry it in `publishableKey`. */
export function keyOf(req: {get(name: string): string | undefined; query: unknown}): string | undefined {
  return req.get('authorization')?.trim() || undefined
}

export function requireKey(store: Store, level: AuthLevel, readKey = keyOf): RequestHandler {
  return (req, res, next) => {
    const key = readKey(req)
    const identity = key ? authenticateKey(store, key) : null
    if (!identity) return next(errors.unauthorized())
    if (level === 'S' && identity.type !== 'secret') return next(errors.forbidden())
    if (getSettings(store, identity.live)['project.disabled']) return next(errors.paymentRequired())
    res.locals.auth = identity
    next()
  }
}
