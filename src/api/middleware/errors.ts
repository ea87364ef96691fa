import type {ServerResponse} from 'node:http'
import type {ErrorRequestHandler, RequestHandler} from 'express'
import {refuse} from '../../errors.js'
import type {Logger} from '../../log.js'
import {errorBody, errorHeaders, toRefusal} from '../errors.js'
import {sendJson} from '../send.js'

/** Writes any failure as `{meta: {code, error, param?, message}}`; only true faults are 500 and logged with their stack. */
export function errorSender(log: Logger, bodyLimitBytes: number) {
  return (error: unknown, req: {method?: string; path: string}, res: ServerResponse): void => {
    const refusal = toRefusal(error, bodyLimitBytes)
    if (refusal.status >= 500) log.error({err: error, requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path}, 'request failed')
    if (res.headersSent) {
      res.destroy()
      return
    }
    for (const [name, value] of Object.entries(errorHeaders(refusal))) res.setHeader(name, value)
    sendJson(res, refusal.status, errorBody(refusal))
  }
}

/** Unknown routes answer JSON 404 like every other error. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(refuse.routeNotFound(req.method, req.path))
}

export function errorHandler(send: ReturnType<typeof errorSender>): ErrorRequestHandler {
  return (error, req, res, _next) => send(error, req, res)
}
