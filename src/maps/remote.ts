import type {Agent} from 'undici'
import {literalPrivate, publicLookup} from '../webhooks/target.js'

/** Limits of a remote marker icon: its size, and how long its server may take. */
export const REMOTE_ICON_BYTES = 256 * 1024
export const REMOTE_ICON_MS = 3000

/**
 * Fetches marker icons from http(s) URLs (undici, loaded on first use): no redirects, at most
 * REMOTE_ICON_BYTES within REMOTE_ICON_MS, and never from a private address, checked on the
 * address connected to (a name re-pointed inside the network is refused too; the webhooks' lookup).
 * `anyAddress` lifts that check (a deployment's own network, tests).
 */
export function remoteFetcher(anyAddress = false): (url: string) => Promise<Buffer> {
  let client: Promise<{agent: Agent; request: typeof import('undici').request}> | undefined
  const connect = () => (client ??= import('undici').then(({Agent, request}) => ({
    request,
    agent: new Agent({
      headersTimeout: REMOTE_ICON_MS,
      bodyTimeout: REMOTE_ICON_MS,
      connect: anyAddress ? {timeout: REMOTE_ICON_MS} : {timeout: REMOTE_ICON_MS, lookup: publicLookup()},
    }),
  })))
  return async (raw) => {
    let url: URL
    try {
      url = new URL(raw)
    } catch {
      throw new Error('not a URL')
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') throw new Error('not http or https')
    if (!anyAddress && (url.hostname === 'localhost' || literalPrivate(url))) throw new Error('a private address')
    const {agent, request} = await connect()
    try {
      const res = await request(url, {dispatcher: agent, maxRedirections: 0, signal: AbortSignal.timeout(REMOTE_ICON_MS)})
      if (res.statusCode !== 200) {
        await res.body.dump()
        throw new Error(`answered ${res.statusCode}`)
      }
      const chunks: Buffer[] = []
      let size = 0
      for await (const chunk of res.body) {
        size += (chunk as Buffer).length
        if (size > REMOTE_ICON_BYTES) {
          res.body.destroy()
          throw new Error(`larger than ${REMOTE_ICON_BYTES / 1024} KB`)
        }
        chunks.push(chunk as Buffer)
      }
      return Buffer.concat(chunks)
    } catch (error) {
      const e = error as {name?: string; code?: string; message?: string}
      if (e.code === 'EPRIVATE') throw new Error('a private address')
      if (e.name === 'TimeoutError' || e.name === 'AbortError' || e.code?.startsWith('UND_ERR_') && e.code.includes('TIMEOUT')) throw new Error(`no answer within ${REMOTE_ICON_MS / 1000} s`)
      throw new Error(e.message ?? e.code ?? 'failed')
    }
  }
}
