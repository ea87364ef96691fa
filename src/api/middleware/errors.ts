import type {ServerResponse} from 'node:http'
import type {ErrorRequestHandler, RequestHandler} from 'express'
import type {Logger} from '../../log.js'
import {errors, toApiError} from '../errors.js'
import {sendJson} from '../send.js'

/** Writes any failure as `{meta: {code, param, message}}`; only true faults are 500 and logged with their stack. */
export function errorSender(log: Logger, bodyLimitBytes: number) {
  return (error: unknown, req: {method?: string; path: string}, res: ServerResponse): void => {
    const apiError = toApiError(error, bodyLimitBytes)
    if (apiError.status >= 500) log.error({err: error, requestId: res.getHeader('X-Request-Id'), method: req.method, path: req.path}, 'request failed')
    if (res.headersSent) {
      res.destroy()
      return
    }
    for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value)
    sendJson(res, apiError.status, apiError.toBody())
  }
}

/** Unknown routes answer JSON 404 like every other error. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(errors.routeNotFound(req.method, req.path))
}

export function errorHandler(send: ReturnType<typeof errorSender>): ErrorRequestHandler {
  return (error, req, res, _next) => send(error, req, res)
}
