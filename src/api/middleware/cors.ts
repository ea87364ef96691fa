import type {IncomingMessage, ServerResponse} from 'node:http'

const EXPOSED = 'X-Request-Id, X-Radar-Request-Id, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, Retry-After'
const METHODS = 'GET, POST, PUT, PATCH, DELETE'
const DEFAULT_HEADERS = 'Authorization, Content-Type, X-Radar-Device-Type, X-Radar-SDK-Version'

/**
 * CORS for browser SDKs (DECISIONS, compat): any origin, or only the configured ones. Preflights
 * answer 204 and echo `Access-Control-Request-Headers` (a bare `*` would not cover Authorization);
 * real responses, errors included, carry the allow-origin. Returns true when it answered (a
 * preflight). Hand-written: it runs on every request and the `cors` package cost ~6 % of one.
 */
export function corsFor(origins: string[]): (req: IncomingMessage, res: ServerResponse) => boolean {
  const allowed = origins.length === 0 ? null : new Set(origins)
  return (req, res) => {
    const origin = req.headers.origin
    const allow = origin !== undefined && (allowed === null || allowed.has(origin))
    if (allow) {
      res.setHeader('Access-Control-Allow-Origin', origin)
      res.setHeader('Access-Control-Expose-Headers', EXPOSED)
    }
    res.setHeader('Vary', 'Origin')
    if (req.method !== 'OPTIONS' || req.headers['access-control-request-method'] === undefined) return false
    if (allow) {
      res.setHeader('Access-Control-Allow-Methods', METHODS)
      res.setHeader('Access-Control-Allow-Headers', req.headers['access-control-request-headers'] ?? DEFAULT_HEADERS)
      res.setHeader('Access-Control-Max-Age', '86400')
    }
    res.statusCode = 204
    res.setHeader('Content-Length', '0')
    res.end()
    return true
  }
}
