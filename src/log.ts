import pino from 'pino'

export type Logger = pino.Logger

/**
 * Structured JSON logs, on stdout unless `destination` says otherwise (a CLI command whose stdout is
 * its output logs to stderr: pino.destination(2)). Keys and secrets are never passed to it; the
 * redaction is a second line of defence.
 */
export function createLogger(level: string, destination?: pino.DestinationStream): Logger {
  return pino({
    level,
    base: undefined,
    redact: {paths: ['authorization', 'headers.authorization', 'key', 'secret', '*.secret', 'publishableKey'], censor: '[redacted]'},
  }, destination)
}
