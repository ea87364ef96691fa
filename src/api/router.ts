import {type Request, type Response, Router} from 'express'
import type {Config, RateLimitGroup} from '../config/index.js'
import type {Logger} from '../log.js'
import type {MapData} from '../osm/index.js'
import type {Store} from '../store/db.js'
import {type AuthLevel, keyOf, requireKey} from './middleware/auth.js'
import {limiterFor} from './middleware/rate-limit.js'
import {sendJson} from './send.js'

/** What route handlers may reach. Domains are called with what they need from here, never with `req`. */
export interface AppContext {
  config: Config
  store: Store
  log: Logger
  /** The imported map regions (read-only; follows new imports without a restart). */
  map?: MapData
}

export interface RouteOptions {
  auth: AuthLevel
  limit: RateLimitGroup
  /** Where the key is read from; default the `Authorization` header. */
  key?: typeof keyOf
}

/** A handler returns the JSON body (with `meta`); returning undefined means it answered itself. */
export type Handler = (req: Request, res: Response) => unknown

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

export interface Api {
  ctx: AppContext
  route(method: Method, path: string, options: RouteOptions, handler: Handler): void
}

/** Wires each route as: rate limit → authenticate → handler → JSON. One limiter per group, shared by its routes. */
export function createApi(ctx: AppContext, router: Router = Router()): {api: Api; router: Router} {
  const limiters = new Map<string, ReturnType<typeof limiterFor>>()
  const limiter = (group: RateLimitGroup, key: typeof keyOf) => {
    const id = `${group}:${key === keyOf ? 'h' : 'q'}`
    let handler = limiters.get(id)
    if (!handler) limiters.set(id, (handler = limiterFor(group, ctx.config.rateLimits[group], key)))
    return handler
  }
  const api: Api = {
    ctx,
    route(method, path, options, handler) {
      const key = options.key ?? keyOf
      router[method](path, limiter(options.limit, key), requireKey(ctx.store, options.auth, key), async (req, res) => {
        const body = await handler(req, res)
        if (body !== undefined && !res.headersSent) {
          sendJson(res, (body as {meta?: {code?: number}}).meta?.code ?? 200, body)
        }
      })
    },
  }
  return {api, router}
}
