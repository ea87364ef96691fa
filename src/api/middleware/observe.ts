import {randomUUID} from 'node:crypto'
import type {RequestHandler} from 'express'
import type {Logger} from '../../log.js'
import type {Metrics} from '../metrics.js'

const SAFE_ID = /^[\w.:-]{1,128}$/

/**
 * The first middleware: gives every response an `X-Request-Id` (the caller's own when it is sane),
 * and on finish writes one structured log line and the metrics. The path is logged without its
 * query (static maps carry a key there) and headers are never logged.
 */
export function observe(log: Logger, metrics: Metrics): RequestHandler {
  const logging = log.isLevelEnabled('info')
  return (req, res, next) => {
    const start = process.hrtime.bigint()
    const incoming = req.headers['x-request-id']
    const id = typeof incoming === 'string' && SAFE_ID.test(incoming) ? incoming : randomUUID()
    res.locals.requestId = id
    res.setHeader('X-Request-Id', id)
    res.on('finish', () => {
      const seconds = Number(process.hrtime.bigint() - start) / 1e9
      // the route pattern, never the raw path: ids would explode the label set
      const route = req.route ? req.baseUrl + String(req.route.path) : 'unmatched'
      metrics.record(req.method, route, res.statusCode, seconds)
      if (logging) {
        log.info({requestId: id, method: req.method, path: req.path, status: res.statusCode, ms: Math.round(seconds * 1e5) / 100, keyId: res.locals.auth?.id}, 'request')
      }
    })
    next()
  }
}
