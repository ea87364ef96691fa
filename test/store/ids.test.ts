import {describe, expect, it} from 'vitest'
import {newId} from '../../src/store/ids.js'

describe('newId', () => {
  it('is 24 hex characters: the seconds, then ids of one process increasing, so id indexes are appended to', () => {
    const before = Math.floor(Date.now() / 1000)
    const ids = Array.from({length: 20_000}, newId)
    const after = Math.floor(Date.now() / 1000)
    for (const id of ids) expect(id).toMatch(/^[0-9a-f]{24}$/)
    expect(new Set(ids).size).toBe(ids.length)
    expect([...ids].sort()).toEqual(ids)
    const seconds = parseInt(ids[0].slice(0, 8), 16)
    expect(seconds).toBeGreaterThanOrEqual(before)
    expect(seconds).toBeLessThanOrEqual(after)
  })
})
