import pino from 'pino'

export type Logger = pino.Logger

/** Structured JSON logs on stdout. Keys and secrets are never passed to it; the redaction is a second line of defence. */
export function createLogger(level: string): Logger {
  return pino({
    level,
    base: undefined,
    redact: {paths: ['authorization', 'headers.authorization', 'key', 'secret', '*.secret', 'publishableKey'], censor: '[redacted]'},
  })
}
