/**
 * The one catalogue of refusals, in the spirit of fastify's `lib/errors.js`: every way loc says no
 * has a stable code, documented in docs/errors.md (a test fails when one is not). Domains throw a
 * `Refusal`; the API turns it into `{meta: {code: <status>, error: <code>, param?, message}}` in one
 * place (src/api/errors.ts) and the CLI into a message and an exit code in another (src/cli/base.ts).
 * Nothing here knows HTTP beyond the status each code answers with.
 */
export const ERRORS = {
  invalid_parameter: {status: 400, summary: 'a parameter is not valid; `param` names it, the message says what is valid'},
  malformed_body: {status: 400, summary: 'the body is not valid JSON or form data, or not UTF-8'},
  malformed_query: {status: 400, summary: 'the query string has percent-escapes that do not encode UTF-8'},
  input_too_complex: {status: 400, summary: 'the body or query nests deeper, or holds more fields or values, than the input limits allow (docs/api.md)'},
  bad_request: {status: 400, summary: 'the HTTP request itself is malformed (request line, headers, Content-Length or Transfer-Encoding); answered by the server before any route'},
  unreadable_body: {status: 400, summary: 'the body could not be read (the request was aborted or shorter than its Content-Length)'},
  unauthorized: {status: 401, summary: 'no API key, or an unknown, malformed or revoked one'},
  project_disabled: {status: 402, summary: "the environment's `project.disabled` setting is on"},
  quota_spent: {status: 402, summary: "the environment's `project.monthlyRequestQuota` is used up for this month"},
  forbidden: {status: 403, summary: 'a publishable key on an endpoint that needs a secret key'},
  not_found: {status: 404, summary: 'no such resource in this environment'},
  route_not_found: {status: 404, summary: 'no route for this method and path'},
  request_timeout: {status: 408, summary: 'the headers or the body did not arrive within `server.headersTimeoutMs` / `server.requestTimeoutMs`'},
  conflict: {status: 409, summary: "a create would duplicate a unique identifier, or a track's tripOptions name another user's open trip"},
  body_too_large: {status: 413, summary: 'the body is over `server.bodyLimitBytes`, on the wire or once inflated'},
  headers_too_large: {status: 431, summary: 'the request line and headers are over `server.maxHeaderBytes` (a URL that long included)'},
  rate_limited: {status: 429, summary: "over the route's per-second limit; `Retry-After` says when to try again"},
  country_blocked: {status: 451, summary: "the caller's IP geolocates to a country in `security.blockedCountries`"},
  internal: {status: 500, summary: 'an unexpected fault; logged with its stack and request id'},
  unavailable: {status: 503, summary: 'a part the request needs (map data, an engine) is not loaded or not ready, or the store stayed locked by another writer (a CLI import) past its busy timeout, or its disk is full; `Retry-After` when retrying helps'},
} as const satisfies Record<string, {status: number; summary: string}>

export type ErrorCode = keyof typeof ERRORS

/** What some refusals carry besides their message. */
export interface RefusalExtra {
  /** Seconds until a retry can succeed (rate limits). */
  retryAfterS?: number
}

/**
 * A refusal: what was asked cannot be done, and why, in words a caller can act on. It carries no
 * stack: a refusal is an answer, not a fault, and capturing one cost ~10 µs (a 429 storm pays it
 * per request).
 */
export class Refusal extends Error {
  readonly code: ErrorCode
  readonly param?: string
  readonly extra: RefusalExtra

  constructor(code: ErrorCode, message: string, param?: string, extra: RefusalExtra = {}) {
    const limit = Error.stackTraceLimit
    Error.stackTraceLimit = 0
    super(message)
    Error.stackTraceLimit = limit
    this.code = code
    this.param = param
    this.extra = extra
  }

  get status(): number {
    return ERRORS[this.code].status
  }
}

/** Builders: parameter messages always read `<param>: <statement of what is valid>`. */
export const refuse = {
  invalid: (param: string, statement: string) => new Refusal('invalid_parameter', `${param}: ${statement}`, param),
  missing: (param: string) => new Refusal('invalid_parameter', `${param}: required`, param),
  malformedBody: (statement = 'must be valid JSON') => new Refusal('malformed_body', `body: ${statement}`, 'body'),
  malformedQuery: (statement: string) => new Refusal('malformed_query', `query: ${statement}`, 'query'),
  tooComplex: (param: string, statement: string) => new Refusal('input_too_complex', `${param}: ${statement}`, param),
  badRequest: (why: string) => new Refusal('bad_request', `request: must be a well-formed HTTP/1.1 request (${why})`, 'request'),
  requestTimeout: () => new Refusal('request_timeout', 'Request timeout: the request did not arrive in time.'),
  headersTooLarge: (maxBytes: number) => new Refusal('headers_too_large', `Request header fields too large: the request line and headers must be at most ${maxBytes} bytes.`),
  unreadableBody: (why: string) => new Refusal('unreadable_body', `body: ${why}`, 'body'),
  /** `where`: the place the route reads its key from (static maps: the publishableKey query parameter) */
  unauthorized: (where: string) => new Refusal('unauthorized', `Unauthorized: ${where} must hold a valid, unrevoked API key.`),
  projectDisabled: () => new Refusal('project_disabled', PAYMENT_REQUIRED),
  quotaSpent: () => new Refusal('quota_spent', PAYMENT_REQUIRED),
  forbidden: () => new Refusal('forbidden', 'Forbidden: this endpoint requires a secret key.'),
  notFound: (resource: string) => new Refusal('not_found', `${resource} not found`),
  routeNotFound: (method: string, path: string) => new Refusal('route_not_found', `route not found: ${method} ${path}`),
  conflict: (param: string, statement: string) => new Refusal('conflict', `${param}: ${statement}`, param),
  bodyTooLarge: (statement: string) => new Refusal('body_too_large', `body: ${statement}`, 'body'),
  rateLimited: (retryAfterS: number) =>
    new Refusal('rate_limited', `Too many requests: rate limit exceeded, retry in ${retryAfterS} s.`, undefined, {retryAfterS}),
  countryBlocked: () => new Refusal('country_blocked', 'Unavailable for legal reasons: requests from this country are blocked.'),
  internal: () => new Refusal('internal', 'Internal server error.'),
  unavailable: (why: string) => new Refusal('unavailable', `Service temporarily unavailable: ${why}`),
  storeBusy: () => new Refusal('unavailable', 'Service temporarily unavailable: the store is locked by another writer (a CLI import?); retry shortly.', undefined, {retryAfterS: 1}),
  storeFull: () => new Refusal('unavailable', "Service temporarily unavailable: the store's disk is full; nothing was written."),
  /** `loc keys revoke` (src/project/keys.ts): the messages it printed before codes existed. */
  noKeyMatches: (prefix: string) => new Refusal('not_found', `no key matches prefix ${prefix}`, 'prefix'),
  ambiguousKeyPrefix: (prefix: string, count: number) =>
    new Refusal('invalid_parameter', `prefix: must match one key (${prefix} matches ${count}; give more characters)`, 'prefix'),
}

// one sentence for both causes: clients of the hosted original know only the status (compat)
const PAYMENT_REQUIRED = 'Payment required: this project is disabled or its usage is exceeded.'

export const isRefusal = (error: unknown): error is Refusal => error instanceof Refusal
