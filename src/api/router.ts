import type {IncomingMessage, ServerResponse} from 'node:http'
import FindMyWay, {type HTTPMethod} from 'find-my-way'
import proxyAddr from 'proxy-addr'
import type {RateLimitGroup} from '../config/index.js'
import {refuse} from '../errors.js'
import {createUsageMeter} from '../project/usage.js'
import type {System} from '../system.js'
import {inputProblem} from '../validate.js'
import {parseForm, readBody} from './body.js'
import {type AuthLevel, authenticate, keyOf, type KeySource} from './middleware/auth.js'
import {errorSender} from './middleware/errors.js'
import type {Observed} from './middleware/observe.js'
import {limiterFor, needsBody} from './middleware/rate-limit.js'
import {type ApiRequest, splitUrl} from './request.js'
import {JsonStream, JsonText, sendJson, sendStream, sendText} from './send.js'

/** What route handlers may reach: the running system (src/system.ts). Domains are called with what they need from here, never with a request. */
export type AppContext = Omit<System, 'close'>

export interface RouteOptions {
  auth: AuthLevel
  limit: RateLimitGroup
  /** Where the key is read from; default the `Authorization` header. */
  key?: KeySource
  /** The path is not under `/v1` (static maps: `/maps/static`). */
  root?: boolean
}

/**
 * A handler returns the JSON body (with `meta`; its `meta.code` is the status), a `JsonText` or a `JsonStream`;
 * returning undefined means it wrote the response itself (binary bodies such as map images).
 */
export type Handler = (req: ApiRequest, res: ServerResponse) => unknown

type Method = 'get' | 'post' | 'put' | 'patch' | 'delete'

export interface Api {
  ctx: AppContext
  route(method: Method, path: string, options: RouteOptions, handler: Handler): void
}

interface Route {
  pattern: string
  handler: Handler
  level: AuthLevel
  key: KeySource
  group: RateLimitGroup
  limit: (req: ApiRequest, res: ServerResponse) => void
}

function send(res: ServerResponse, body: unknown, fail: (error: unknown) => void): void {
  if (body === undefined || res.headersSent) return
  if (body instanceof JsonText) sendText(res, body.status, body.text)
  else if (body instanceof JsonStream) sendStream(res, body).catch(fail)
  else sendJson(res, (body as {meta?: {code?: number}}).meta?.code ?? 200, body)
}

const EMPTY: Record<string, unknown> = Object.freeze({}) as Record<string, unknown>

/**
 * The `/v1` API on node:http: a radix-tree router (find-my-way) and one straight pipeline per
 * request — authenticate → read the body → rate limit → handler → JSON. Express costs about four
 * times a plain node:http server's CPU per request before any of our work (bench/http), so the API
 * does not go through it; express serves the rest (health, metrics, unknown routes).
 *
 * `handle` returns false when no API route matches, leaving the request to the caller.
 */
export function createApi(ctx: AppContext): {api: Api; handle(req: IncomingMessage, res: Observed, requestId: string): boolean; close(): void} {
  const {config, store, log} = ctx
  const router = FindMyWay({ignoreTrailingSlash: true, ignoreDuplicateSlashes: true})
  const limiters = new Map<RateLimitGroup, Route['limit']>()
  const limiterOf = (group: RateLimitGroup) => {
    let limiter = limiters.get(group)
    if (!limiter) limiters.set(group, (limiter = limiterFor(group, config.rateLimits[group])))
    return limiter
  }
  const limitBytes = config.server.bodyLimitBytes
  // as express's `trust proxy: true`: the left-most X-Forwarded-For address
  const ipOf = config.server.trustProxy ? (req: IncomingMessage) => proxyAddr(req, () => true) : (req: IncomingMessage) => req.socket.remoteAddress ?? ''
  const sendError = errorSender(log, limitBytes)
  // requests past the rate limit count toward `project.monthlyRequestQuota`
  const usage = createUsageMeter(store)

  // Kept synchronous until something is truly asynchronous (a body to read, an async handler):
  // a GET with a synchronous handler costs no promise and no extra tick.
  function run(route: Route, params: Record<string, string>, req: IncomingMessage, res: Observed, requestId: string): void {
    const [path, search] = splitUrl(req.url ?? '/')
    const request: ApiRequest = {
      method: req.method!, path, params, query: EMPTY,
      // ip eagerly: a lazy getter here made the object slow to build and cost ~15 µs per request
      body: undefined, headers: req.headers, ip: ipOf(req), auth: undefined!, requestId,
    }
    const fail = (error: unknown) => sendError(error, request, res)
    try {
      if (search) request.query = parseQuery(search)
      request.auth = authenticate(store, usage, route.level, route.key(request), () => ctx.ip.country(request.ip), route.key.where)
      res.keyId = request.auth.id
      if (request.method === 'GET' || request.method === 'HEAD') return respond(route, request, res, true)
      // the limit before the body: an over-limit caller costs no body read and cannot turn its 429 into a 400.
      // Track's limit waits for the body: it counts the device the body names.
      const early = !needsBody(route.group)
      if (early) route.limit(request, res)
      readBody(req, limitBytes).then((body) => {
        // no body reads as {} (each schema names its first missing field); JSON null stays null, refused as a non-object
        request.body = body === undefined ? {} : body
        respond(route, request, res, !early)
      }, fail)
    } catch (error) {
      fail(error)
    }
  }

  function respond(route: Route, request: ApiRequest, res: Observed, limit: boolean): void {
    const fail = (error: unknown) => sendError(error, request, res)
    try {
      if (limit) route.limit(request, res)
      usage.count(request.auth.live)
      const body = route.handler(request, res)
      if (body instanceof Promise) body.then((resolved) => send(res, resolved, fail), fail)
      else send(res, body, fail)
    } catch (error) {
      fail(error)
    }
  }

  const api: Api = {
    ctx,
    route(method, path, options, handler) {
      const pattern = options.root ? path : `/v1${path}`
      const route: Route = {pattern, handler, level: options.auth, key: options.key ?? keyOf, group: options.limit, limit: limiterOf(options.limit)}
      router.on(method.toUpperCase() as HTTPMethod, pattern, () => undefined, route)
      // HEAD answers as GET does; node:http leaves the body out
      if (method === 'get') router.on('HEAD', pattern, () => undefined, route)
    },
  }

  return {
    api,
    close: () => usage.close(),
    handle(req, res, requestId) {
      const found = router.find(req.method as HTTPMethod, req.url ?? '/')
      if (!found) return false
      const route = found.store as Route
      res.routeLabel = route.pattern
      run(route, found.params as Record<string, string>, req, res, requestId)
      return true
    },
  }
}

/** The query string within the input limits (docs/api.md), as `metadata[key]=value` nests. */
function parseQuery(search: string): Record<string, unknown> {
  const query = parseForm(search, 'query')
  const problem = inputProblem(query, 'query')
  if (problem) throw problem.tooComplex ? refuse.tooComplex('query', problem.statement) : refuse.invalid(problem.path, problem.statement)
  return query
}
