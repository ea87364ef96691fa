import {randomUUID} from 'node:crypto'
import type {IncomingMessage, ServerResponse} from 'node:http'
import type {Logger} from '../../log.js'
import {SECURITY_HEADERS} from '../guard.js'
import type {Metrics} from '../metrics.js'
import {splitUrl} from '../request.js'

const SAFE_ID = /^[\w.:-]{1,128}$/

/** The route pattern a request matched, for metrics labels; set by whoever routed it. */
export interface Observed extends ServerResponse {
  routeLabel?: string
  /** The authenticated key's id, for the log line. */
  keyId?: string
}

/**
 * The first thing every request meets: gives the response an `X-Request-Id`, repeated as
 * `X-Radar-Request-Id` (the caller's own id when it is sane), and on finish writes one structured log line and the metrics. The path is logged
 * without its query (static maps carry a key there) and headers are never logged. Returns the id.
 */
export function observer(log: Logger, metrics: Metrics): (req: IncomingMessage, res: Observed) => string {
  const logging = log.isLevelEnabled('info')
  return (req, res) => {
    const start = performance.now()
    const incoming = req.headers['x-request-id']
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID()
    res.setHeader('X-Request-Id', id)
    // the name the hosted original's web SDK reads (DECISIONS, compat)
    res.setHeader('X-Radar-Request-Id', id)
    for (const name in SECURITY_HEADERS) res.setHeader(name, SECURITY_HEADERS[name])
    res.on('finish', () => {
      const ms = performance.now() - start
      const route = res.routeLabel ?? routeOfExpress(req)
      metrics.record(req.method!, route, res.statusCode, ms / 1000)
      if (logging) {
        log.info({requestId: id, method: req.method, path: splitUrl(req.url ?? '')[0], status: res.statusCode, ms: Math.round(ms * 100) / 100, keyId: res.keyId}, 'request')
      }
    })
    return id
  }
}

// the route pattern, never the raw path: ids would explode the label set
function routeOfExpress(req: IncomingMessage): string {
  const {route, baseUrl} = req as {route?: {path: unknown}; baseUrl?: string}
  return route ? (baseUrl ?? '') + String(route.path) : 'unmatched'
}
