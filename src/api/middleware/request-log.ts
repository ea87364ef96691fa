import type {RequestHandler} from 'express'
import type {Logger} from '../../log.js'

/** One structured line per request. The path is logged without its query (static maps carry a key there) and headers are never logged. */
export function requestLog(log: Logger): RequestHandler {
  return (req, res, next) => {
    const start = process.hrtime.bigint()
    res.on('finish', () => {
      log.info({
        requestId: res.locals.requestId,
        method: req.method,
        path: req.path,
        status: res.statusCode,
        ms: Math.round(Number(process.hrtime.bigint() - start) / 1e4) / 100,
        keyId: res.locals.auth?.id,
      }, 'request')
    })
    next()
  }
}
