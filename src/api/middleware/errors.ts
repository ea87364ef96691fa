import type {ErrorRequestHandler, RequestHandler} from 'express'
import type {Logger} from '../../log.js'
import {ApiError, errors} from '../errors.js'
import {sendJson} from '../send.js'

/** Unknown routes answer JSON 404 like every other error. */
export const notFound: RequestHandler = (req, _res, next) => {
  next(errors.routeNotFound(req.method, req.path))
}

/** Maps anything thrown to the catalogue's body; only true faults are 500 and logged with their stack. */
export function errorHandler(log: Logger, bodyLimitBytes: number): ErrorRequestHandler {
  return (error, req, res, _next) => {
    const apiError = toApiError(error, bodyLimitBytes)
    if (apiError.status >= 500) log.error({err: error, requestId: res.locals.requestId, method: req.method, path: req.path}, 'request failed')
    if (res.headersSent) return
    for (const [name, value] of Object.entries(apiError.headers ?? {})) res.setHeader(name, value)
    sendJson(res, apiError.status, apiError.toBody())
  }
}

function toApiError(error: unknown, bodyLimitBytes: number): ApiError {
  if (error instanceof ApiError) return error
  const type = (error as {type?: string} | null)?.type
  if (type === 'entity.too.large') return errors.payloadTooLarge(bodyLimitBytes)
  if (type === 'entity.parse.failed') return errors.malformedBody()
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return errors.invalidParam('body', 'must be UTF-8 encoded')
  const status = (error as {status?: number} | null)?.status
  if (status && status >= 400 && status < 500) return new ApiError(status, (error as Error).message)
  return errors.internal()
}
