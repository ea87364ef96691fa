import {randomUUID} from 'node:crypto'
import {readFileSync} from 'node:fs'
import type {Server} from 'node:http'
import type {Socket} from 'node:net'
import type {Config} from '../config/index.js'
import {refuse, type Refusal} from '../errors.js'
import type {Logger} from '../log.js'
import {errorBody} from './errors.js'

/**
 * What a reviewer expects on a JSON API, on every response (the API's, express's and node's own):
 * no sniffing, and a CSP that forbids everything, framing included (`frame-ancestors` supersedes
 * X-Frame-Options). Each header costs ~1 µs a request (bench/http), so nothing that only matters to
 * documents (Referrer-Policy) rides on every JSON answer.
 */
export const SECURITY_HEADERS: Record<string, string> = {
  'X-Content-Type-Options': 'nosniff',
  'Content-Security-Policy': "default-src 'none'; frame-ancestors 'none'",
}

/** The open-file limit the process runs under (Linux), or undefined where it cannot be read. */
function openFileLimit(): number | undefined {
  try {
    const line = /^Max open files\s+(\d+)/m.exec(readFileSync('/proc/self/limits', 'utf8'))
    return line ? Number(line[1]) : undefined
  } catch {
    return undefined
  }
}

/** `server.maxConnections`, or with 0 the open-file limit less 128 kept for SQLite, map files and logs. */
export function connectionCap(config: Config): number {
  if (config.server.maxConnections > 0) return config.server.maxConnections
  return Math.max(64, (openFileLimit() ?? 1024) - 128)
}

/** node:http options from `config.server`: the timeouts and header size that answer 408 and 431. */
export function serverOptions(config: Config) {
  const {headersTimeoutMs, requestTimeoutMs, keepAliveTimeoutMs, maxHeaderBytes} = config.server
  return {
    headersTimeout: headersTimeoutMs,
    requestTimeout: Math.max(requestTimeoutMs, headersTimeoutMs),
    keepAliveTimeout: keepAliveTimeoutMs,
    maxHeaderSize: maxHeaderBytes,
    // how often node looks for timed-out requests (its default, 30 s, would let them linger that long)
    connectionsCheckingInterval: Math.min(1000, Math.max(50, Math.floor(headersTimeoutMs / 4))),
  }
}

/**
 * Guards a server: a cap on open connections (new ones past it are closed at once, logged at most
 * every 10 s with how many), and node's own refusals (malformed requests, 408, 431) answered as
 * JSON in the API's shape with a request id, instead of node's empty bodies.
 */
export function guard(server: Server, config: Config, log: Logger): void {
  server.maxConnections = connectionCap(config)
  let dropped = 0
  let lastLog = 0
  server.on('drop', () => {
    dropped++
    const now = Date.now()
    if (now - lastLog < 10_000) return
    log.warn({dropped, maxConnections: server.maxConnections}, 'connection cap reached: new connections closed (server.maxConnections)')
    lastLog = now
    dropped = 0
  })
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy()
      return
    }
    const refusal = clientRefusal(error, config.server.maxHeaderBytes)
    const id = randomUUID()
    log.info({requestId: id, status: refusal.status, reason: error.code}, 'client error')
    const text = JSON.stringify(errorBody(refusal))
    const headers = {
      'Content-Type': 'application/json; charset=utf-8',
      'Content-Length': Buffer.byteLength(text),
      Connection: 'close',
      'Cache-Control': 'no-store',
      'X-Request-Id': id,
      'X-Radar-Request-Id': id,
      ...SECURITY_HEADERS,
    }
    const head = Object.entries(headers).map(([name, value]) => `${name}: ${value}\r\n`).join('')
    socket.end(`HTTP/1.1 ${refusal.status} ${REASONS[refusal.status]}\r\n${head}\r\n${text}`)
  })
}

const REASONS: Record<number, string> = {400: 'Bad Request', 408: 'Request Timeout', 431: 'Request Header Fields Too Large'}

function clientRefusal(error: NodeJS.ErrnoException, maxHeaderBytes: number): Refusal {
  if (error.code === 'HPE_HEADER_OVERFLOW') return refuse.headersTooLarge(maxHeaderBytes)
  if (error.code === 'ERR_HTTP_REQUEST_TIMEOUT') return refuse.requestTimeout()
  return refuse.badRequest(error.code ?? 'parse error')
}
