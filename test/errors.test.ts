import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
import {errorBody, errorHeaders, toRefusal} from '../src/api/errors.js'
import {ERRORS, Refusal, refuse} from '../src/errors.js'

/** The rows of docs/errors.md's API table: `| \`code\` | status | when | example |`. */
function documented(): Map<string, number> {
  const rows = new Map<string, number>()
  for (const line of readFileSync('docs/errors.md', 'utf8').split('\n')) {
    const match = /^\| `(\w+)` \| (\d+) \|/.exec(line)
    if (match) rows.set(match[1], Number(match[2]))
  }
  return rows
}

describe('the error catalogue (src/errors.ts)', () => {
  it('documents every code with its status in docs/errors.md', () => {
    const rows = documented()
    for (const [code, {status}] of Object.entries(ERRORS)) expect(rows.get(code), `${code} in docs/errors.md`).toBe(status)
  })

  it('documents no code that does not exist', () => {
    for (const code of documented().keys()) expect(Object.keys(ERRORS), `docs/errors.md names ${code}`).toContain(code)
  })

  it('answers every code with a 4xx or 5xx status and says when in one line', () => {
    for (const [code, {status, summary}] of Object.entries(ERRORS)) {
      expect(code).toMatch(/^[a-z]+(_[a-z]+)*$/)
      expect(Number.isInteger(status) && status >= 400 && status < 600, `${code}: ${status}`).toBe(true)
      expect(summary, code).toMatch(/^\S.*[^.]$/)
    }
  })

  it('has a builder for every code, and every builder makes a refusal of the catalogue', () => {
    const made = new Set<string>()
    for (const [name, build] of Object.entries(refuse)) {
      const refusal = (build as (...args: unknown[]) => unknown)('x', 1)
      expect(refusal, name).toBeInstanceOf(Refusal)
      made.add((refusal as Refusal).code)
    }
    expect([...made].sort()).toEqual(Object.keys(ERRORS).sort())
  })

  it('words parameter refusals as `<param>: <statement>` and carries the retry delay', () => {
    expect(refuse.invalid('latitude', 'range -90 to 90')).toMatchObject({code: 'invalid_parameter', status: 400, param: 'latitude', message: 'latitude: range -90 to 90'})
    expect(refuse.notFound('user')).toMatchObject({code: 'not_found', status: 404, message: 'user not found'})
    expect(refuse.rateLimited(3).extra).toEqual({retryAfterS: 3})
  })
})

describe('the API shape of a refusal (src/api/errors.ts)', () => {
  const body = (error: unknown) => errorBody(toRefusal(error, 1024))

  it('keeps a refusal, and gives body-parser failures and unknown faults their codes', () => {
    expect(body(refuse.invalid('limit', 'integer from 1 to 1000'))).toEqual({meta: {code: 400, error: 'invalid_parameter', param: 'limit', message: 'limit: integer from 1 to 1000'}})
    expect(body(Object.assign(new Error('too large'), {type: 'entity.too.large', status: 413}))).toEqual({meta: {code: 413, error: 'body_too_large', param: 'body', message: 'body: must be at most 1024 bytes'}})
    expect(body(Object.assign(new Error('bad'), {type: 'charset.unsupported', status: 415})).meta).toMatchObject({code: 400, error: 'malformed_body'})
    expect(body(Object.assign(new Error('request aborted'), {type: 'request.aborted', status: 400})).meta).toMatchObject({code: 400, error: 'unreadable_body', message: 'body: request aborted'})
    expect(body(new TypeError('x is undefined'))).toEqual({meta: {code: 500, error: 'internal', message: 'Internal server error.'}})
    expect(body(Object.assign(new Error('teapot'), {status: 418}))).toEqual({meta: {code: 500, error: 'internal', message: 'Internal server error.'}})
  })

  it('turns the retry delay into Retry-After', () => {
    expect(errorHeaders(refuse.rateLimited(2))).toEqual({'Retry-After': '2'})
    expect(errorHeaders(refuse.notFound('user'))).toEqual({})
  })
})
