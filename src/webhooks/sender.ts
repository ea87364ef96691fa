import type {Agent} from 'undici'
import {literalPrivate, publicLookup} from './target.js'

export interface SendResult {
  ok: boolean
  /** The receiver's status; 0 when none came (refused, timed out, unreachable). */
  status: number
  /** Why it failed, without the URL's path or query (they may hold the receiver's own tokens). */
  error?: string
}

export interface Sender {
  send(url: string, body: string, headers: Record<string, string>): Promise<SendResult>
  close(): Promise<void>
}

const USER_AGENT = 'loc-webhooks/1'

/**
 * POSTs request bodies over kept-alive connections (undici). A 2xx acknowledges; anything else,
 * a redirect included (never followed), is a failure, as are a refused connection and the timeout.
 */
export function createSender(options: {timeoutMs: number; allowPrivate: boolean}): Sender {
  const {timeoutMs, allowPrivate} = options
  // undici's own timers bound the wait for the answer and for each chunk of it: an AbortSignal per
  // request cost ~3 % of a delivery's CPU. Loaded on the first send: importing undici costs every
  // `loc` command ~150 ms of start-up otherwise.
  let client: Promise<{agent: Agent; request: typeof import('undici').request}> | undefined
  const connect = () => (client ??= import('undici').then(({Agent, request}) => ({
    request,
    agent: new Agent({
      keepAliveTimeout: 30_000,
      headersTimeout: timeoutMs,
      bodyTimeout: timeoutMs,
      connect: allowPrivate ? {timeout: timeoutMs} : {timeout: timeoutMs, lookup: publicLookup()},
    }),
  })))
  return {
    async send(url, body, headers) {
      try {
        if (!allowPrivate && literalPrivate(new URL(url))) return {ok: false, status: 0, error: 'private address refused (webhooks.allowPrivate is off)'}
        const {agent, request} = await connect()
        const response = await request(url, {
          method: 'POST', body, dispatcher: agent, maxRedirections: 0,
          headers: {'content-type': 'application/json', 'user-agent': USER_AGENT, ...headers},
        })
        await response.body.dump()
        const ok = response.statusCode >= 200 && response.statusCode < 300
        return ok ? {ok, status: response.statusCode} : {ok, status: response.statusCode, error: `HTTP ${response.statusCode}`}
      } catch (error) {
        const e = error as {name?: string; code?: string; message?: string}
        if (e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT' || e.code === 'UND_ERR_CONNECT_TIMEOUT') return {ok: false, status: 0, error: `no answer within ${timeoutMs} ms`}
        return {ok: false, status: 0, error: e.code ?? e.message ?? 'request failed'}
      }
    },
    close: async () => {
      if (client) await (await client).agent.close()
    },
  }
}
