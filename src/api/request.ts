import type {IncomingHttpHeaders} from 'node:http'
import type {KeyIdentity} from '../project/keys.js'

/** What a route handler sees of a request: already parsed, already authenticated. */
export interface ApiRequest {
  method: string
  path: string
  params: Record<string, string>
  /** The query string parsed with nesting (`metadata[key]=value`). */
  query: Record<string, unknown>
  /** The JSON or form body as sent (`null`, an array, ...); `{}` when a request that may have one has none, undefined on GET/HEAD. */
  body: unknown
  headers: IncomingHttpHeaders
  ip: string
  /** The key's identity; set before any handler runs. */
  auth: KeyIdentity
  requestId: string
}

/** A request target split at its `?`: the path, and the query string without the `?`. */
export function splitUrl(url: string): [path: string, search: string] {
  const q = url.indexOf('?')
  return q < 0 ? [url, ''] : [url.slice(0, q), url.slice(q + 1)]
}
