import {readFileSync} from 'node:fs'
import {describe, expect, it} from 'vitest'
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
