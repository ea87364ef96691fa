import cors from 'cors'

const EXPOSED = ['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'X-RateLimit-Reset', 'Retry-After']

/**
 * CORS for browser SDKs (DECISIONS, compat): any origin, or only the configured ones; preflights
 * answer 204 and echo `Access-Control-Request-Headers`, so `Authorization` is allowed by name.
 */
export function corsFor(origins: string[]) {
  return cors({
    origin: origins.length === 0 ? true : origins,
    methods: ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'],
    exposedHeaders: EXPOSED,
    maxAge: 86_400,
    optionsSuccessStatus: 204,
  })
}
