import type {IncomingMessage} from 'node:http'
import {createGunzip, createInflate} from 'node:zlib'
import qs from 'qs'
import {refuse} from '../errors.js'
import {INPUT_LIMITS, inputProblem, PROTO_KEYS} from '../validate.js'

/** Fields in one form body or query string, and their nesting (`a[b][c]` is 3). */
export const FORM_LIMITS = {fields: 1000, depth: 5}

const STRICT_UTF8 = new TextDecoder('utf-8', {fatal: true})

/**
 * Reads a request body: at most `limitBytes` on the wire and after inflating (gzip, deflate), well-formed
 * UTF-8, JSON or `application/x-www-form-urlencoded`, then checked by `inputProblem` (depth, sizes,
 * Unicode, prototype keys). Every failure is a refusal with `param: "body"` or the field's path.
 * A body of another content type is refused; no body gives undefined.
 */
export async function readBody(req: IncomingMessage, limitBytes: number): Promise<unknown> {
  const type = mediaType(req.headers['content-type'])
  const kind = type === 'application/json' || /^application\/[\w.-]+\+json$/.test(type) ? 'json' : type === 'application/x-www-form-urlencoded' ? 'form' : undefined
  if (!kind) {
    req.resume()
    // a body nobody reads made track answer `deviceId: required` to a JSON body sent as text/plain
    const sent = Number(req.headers['content-length']) > 0 || req.headers['transfer-encoding'] !== undefined
    if (sent) throw refuse.malformedBody(`must be JSON (Content-Type: application/json) or a form (application/x-www-form-urlencoded)${type ? `, not ${type}` : ''}`)
    return undefined
  }
  const charset = /;\s*charset=["']?([\w-]+)/i.exec(String(req.headers['content-type']))?.[1]?.toLowerCase()
  if (charset && charset !== 'utf-8' && charset !== 'utf8') {
    req.resume()
    throw refuse.malformedBody('must be UTF-8 encoded (charset=utf-8)')
  }
  const declared = Number(req.headers['content-length'])
  if (declared > limitBytes) {
    req.resume()
    throw refuse.bodyTooLarge(`must be at most ${limitBytes} bytes`)
  }
  const bytes = await collect(req, limitBytes)
  let text: string
  try {
    text = STRICT_UTF8.decode(bytes)
  } catch {
    throw refuse.malformedBody('must be UTF-8 encoded (invalid byte sequence)')
  }
  const body = kind === 'json' ? parseJson(text) : parseForm(text, 'body')
  const problem = inputProblem(body, 'body')
  if (problem) throw problem.tooComplex ? refuse.tooComplex('body', problem.statement) : refuse.invalid(problem.path, problem.statement)
  return body
}

function parseJson(text: string): unknown {
  if (text.trim() === '') return undefined
  // JSON.parse recurses: nesting past INPUT_LIMITS.depth is refused by a bracket count before it
  if (nestingOver(text, INPUT_LIMITS.depth)) throw refuse.tooComplex('body', `must be nested at most ${INPUT_LIMITS.depth} levels deep`)
  try {
    return JSON.parse(text)
  } catch {
    throw refuse.malformedBody()
  }
}

/** True when brackets outside strings nest deeper than `max`. */
function nestingOver(text: string, max: number): boolean {
  let depth = 0
  let inString = false
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i)
    if (inString) {
      if (c === 92) i++ // backslash: skip the escaped character
      else if (c === 34) inString = false
    } else if (c === 34) inString = true
    else if (c === 91 || c === 123) {
      if (++depth > max) return true
    } else if (c === 93 || c === 125) depth--
  }
  return false
}

/** A form body or query string: nested keys (`a[b]=c`) within FORM_LIMITS, percent-escapes that are UTF-8. */
export function parseForm(text: string, where: 'body' | 'query'): Record<string, unknown> {
  // qs drops prototype keys silently; inputProblem refuses them by name, so they are found here first
  if (/__proto__|constructor|prototype/.test(text)) protoKeyInForm(text, where)
  try {
    return qs.parse(text, {
      depth: FORM_LIMITS.depth, strictDepth: true, parameterLimit: FORM_LIMITS.fields, throwOnLimitExceeded: true,
      decoder: strictDecode,
    }) as Record<string, unknown>
  } catch (error) {
    if (error instanceof MalformedEscape) {
      throw where === 'body' ? refuse.malformedBody('percent-escapes must encode UTF-8') : refuse.malformedQuery('percent-escapes must encode UTF-8')
    }
    const statement = /depth/i.test(String((error as Error).message))
      ? `keys nested at most ${FORM_LIMITS.depth} levels deep (a[b][c])`
      : `at most ${FORM_LIMITS.fields} fields`
    throw refuse.tooComplex(where, `must have ${statement}`)
  }
}

/** Throws the refusal of the first form key with a prototype name in it (`a[__proto__]=1`). */
function protoKeyInForm(text: string, where: 'body' | 'query'): void {
  for (const pair of text.split('&')) {
    const eq = pair.indexOf('=')
    let key: string
    try {
      key = strictDecode(eq < 0 ? pair : pair.slice(0, eq))
    } catch {
      continue // parsing refuses it
    }
    const segments = key.match(/[^[\]]+/g) ?? []
    const at = segments.findIndex((s) => PROTO_KEYS.has(s))
    if (at >= 0) throw refuse.invalid(segments.slice(0, at + 1).join('.') || where, `"${segments[at]}" is not accepted as a key`)
  }
}

class MalformedEscape extends Error {}

function strictDecode(text: string): string {
  const plus = text.replace(/\+/g, ' ')
  if (!plus.includes('%')) return plus
  try {
    return decodeURIComponent(plus)
  } catch {
    throw new MalformedEscape()
  }
}

function mediaType(header: string | undefined): string {
  if (!header) return ''
  const semi = header.indexOf(';')
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase()
}

/** The body's bytes, inflated per Content-Encoding, refused past `limitBytes` either way. */
function collect(req: IncomingMessage, limitBytes: number): Promise<Buffer> {
  const encoding = String(req.headers['content-encoding'] ?? 'identity').trim().toLowerCase()
  if (encoding !== 'identity' && encoding !== 'gzip' && encoding !== 'deflate') {
    req.resume()
    return Promise.reject(refuse.malformedBody('Content-Encoding must be gzip, deflate or identity'))
  }
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let size = 0
    let wire = 0
    let done = false
    const finish = (error: unknown, value?: Buffer) => {
      if (done) return
      done = true
      if (error) {
        req.resume()
        reject(error)
      } else resolve(value!)
    }
    const source = encoding === 'identity' ? req : req.pipe(encoding === 'gzip' ? createGunzip() : createInflate())
    if (source !== req) {
      req.on('data', (chunk: Buffer) => {
        wire += chunk.length
        if (wire > limitBytes) finish(refuse.bodyTooLarge(`must be at most ${limitBytes} bytes`))
      })
      source.on('error', () => finish(refuse.malformedBody(`must be valid ${encoding} data (Content-Encoding: ${encoding})`)))
    }
    source.on('data', (chunk: Buffer) => {
      size += chunk.length
      if (size > limitBytes) {
        finish(refuse.bodyTooLarge(`must be at most ${limitBytes} bytes${source === req ? '' : ' once inflated'}`))
        if (source !== req) (source as NodeJS.ReadableStream & {destroy(): void}).destroy()
        return
      }
      chunks.push(chunk)
    })
    source.on('end', () => finish(null, Buffer.concat(chunks, size)))
    req.on('aborted', () => finish(refuse.unreadableBody('the request was aborted')))
    req.on('error', () => finish(refuse.unreadableBody('the body could not be read')))
  })
}
