import {Refusal} from '../errors.js'

/**
 * The one error catalogue: every failure the API reports is built here and leaves as
 * `{meta: {code, param?, message}}`. Parameter errors read `<param>: <what is valid>`.
 */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly param?: string,
    readonly headers?: Record<string, string>,
  ) {
    super(message)
  }

  toBody(): {meta: {code: number; param?: string; message: string}} {
    return {meta: {code: this.status, ...(this.param === undefined ? {} : {param: this.param}), message: this.message}}
  }
}

export const errors = {
  invalidParam: (param: string, statement: string) => new ApiError(400, `${param}: ${statement}`, param),
  missingParam: (param: string) => new ApiError(400, `${param}: required`, param),
  malformedBody: () => new ApiError(400, 'body: must be valid JSON', 'body'),
  unauthorized: () => new ApiError(401, 'Unauthorized: the Authorization header must hold a valid, unrevoked API key.'),
  paymentRequired: () => new ApiError(402, 'Payment required: this project is disabled or its usage is exceeded.'),
  forbidden: () => new ApiError(403, 'Forbidden: this endpoint requires a secret key.'),
  notFound: (resource: string) => new ApiError(404, `${resource} not found`),
  routeNotFound: (method: string, path: string) => new ApiError(404, `route not found: ${method} ${path}`),
  conflict: (param: string, statement: string) => new ApiError(409, `${param}: ${statement}`, param),
  payloadTooLarge: (limitBytes: number) => new ApiError(413, `body: must be at most ${limitBytes} bytes`, 'body'),
  rateLimited: (retryAfterS: number) =>
    new ApiError(429, `Too many requests: rate limit exceeded, retry in ${retryAfterS} s.`, undefined, {'Retry-After': String(retryAfterS)}),
  blockedCountry: () => new ApiError(451, 'Unavailable for legal reasons: requests from this country are blocked.'),
  internal: () => new ApiError(500, 'Internal server error.'),
  unavailable: (why: string) => new ApiError(503, `Service temporarily unavailable: ${why}`),
}

/** Anything thrown, as the catalogue's error: body-parser's failures by type, the rest a 500. */
export function toApiError(error: unknown, bodyLimitBytes: number): ApiError {
  if (error instanceof ApiError) return error
  if (error instanceof Refusal) return new ApiError(error.status, error.message, error.param)
  const type = (error as {type?: string} | null)?.type
  if (type === 'entity.too.large') return errors.payloadTooLarge(bodyLimitBytes)
  if (type === 'entity.parse.failed') return errors.malformedBody()
  if (type === 'encoding.unsupported' || type === 'charset.unsupported') return errors.invalidParam('body', 'must be UTF-8 encoded')
  const status = (error as {status?: number} | null)?.status
  if (status && status >= 400 && status < 500) return new ApiError(status, (error as Error).message)
  return errors.internal()
}
