import {isRefusal, refuse, type Refusal} from '../errors.js'
import {storeRefusal} from '../store/write.js'

/** A form body may hold at most this many fields (body-parser's `parameterLimit` default). */
const FORM_FIELDS_MAX = 1000

/** The one error shape of the API: `meta.code` is the status (compat), `meta.error` the stable code. */
export interface ErrorBody {
  meta: {code: number; error: string; param?: string; message: string}
}

/** Anything thrown, as a refusal: body-parser's failures by their type, anything unknown a 500. */
export function toRefusal(error: unknown, bodyLimitBytes: number): Refusal {
  if (isRefusal(error)) return error
  // another connection held the write lock past the busy timeout, or the disk is full: nothing was written
  const stored = storeRefusal(error)
  if (stored) return stored
  const {type, status, message} = (error ?? {}) as {type?: string; status?: number; message?: string}
  if (type === 'entity.too.large') return refuse.bodyTooLarge(`must be at most ${bodyLimitBytes} bytes`)
  if (type === 'parameters.too.many') return refuse.bodyTooLarge(`must have at most ${FORM_FIELDS_MAX} form fields`)
  if (type === 'entity.parse.failed') return refuse.malformedBody()
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return refuse.malformedBody('must be UTF-8 encoded')
  // body-parser's other client faults: aborted, or shorter than Content-Length
  if (type !== undefined && status !== undefined && status >= 400 && status < 500) return refuse.unreadableBody(message ?? type)
  return refuse.internal()
}

export function errorBody(refusal: Refusal): ErrorBody {
  const {status, code, param, message} = refusal
  return {meta: {code: status, error: code, ...(param === undefined ? {} : {param}), message}}
}

export function errorHeaders(refusal: Refusal): Record<string, string> {
  const {retryAfterS} = refusal.extra
  return retryAfterS === undefined ? {} : {'Retry-After': String(retryAfterS)}
}
