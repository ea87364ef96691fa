import {describe, expect, it} from 'vitest'
import {glyphs, lengths, stretches} from '../../src/maps/along.js'

const line = (...xy: number[]) => Float64Array.from(xy)

describe('text along a road line', () => {
  it('finds room in the middle of a straight line, and none across a sharp bend', () => {
    const straight = line(10, 50, 210, 50)
    expect(stretches(straight, lengths(straight), 100, 300, 100)).toEqual([{start: 44, width: 100, reversed: false}])
    const long = line(10, 50, 290, 50)
    expect(stretches(long, lengths(long), 100, 300, 100)).toEqual([{start: 84, width: 100, reversed: false}])
    // an L: 60 pixels each way, so 100 pixels of text would have to turn the corner
    const corner = line(20, 20, 80, 20, 80, 80)
    expect(stretches(corner, lengths(corner), 100, 300, 100)).toEqual([])
    expect(stretches(corner, lengths(corner), 40, 300, 100).length).toBeGreaterThan(0)
  })

  it('follows a gentle curve glyph by glyph, and reads left to right on a line drawn right to left', () => {
    // an arc bending 10° per vertex
    const xy: number[] = []
    for (let i = 0, x = 20, y = 80, a = 0; i < 8; i++, a -= (10 * Math.PI) / 180) {
      xy.push(x, y)
      x += 30 * Math.cos(a)
      y += 30 * Math.sin(a)
    }
    const arc = line(...xy)
    const [s] = stretches(arc, lengths(arc), 120, 400, 200)
    expect(s.reversed).toBe(false)
    const at = glyphs(arc, lengths(arc), s, [20, 20, 20, 20, 20, 20])
    // each glyph turns with the road: angles fall from 0 towards the arc's end direction
    for (let i = 1; i < at.length; i++) expect(at[i][2]).toBeLessThanOrEqual(at[i - 1][2] + 1e-9)
    expect(at[0][2] - at[5][2]).toBeGreaterThan(0.2)
    const backwards = line(210, 50, 10, 50)
    const [b] = stretches(backwards, lengths(backwards), 100, 300, 100)
    expect(b.reversed).toBe(true)
    const letters = glyphs(backwards, lengths(backwards), b, [10, 10, 10])
    expect(letters.map(([x]) => x)).toEqual([...letters.map(([x]) => x)].sort((p, q) => p - q)) // first letter leftmost
    for (const [, , angle] of letters) expect(Math.cos(angle)).toBeCloseTo(1)
  })
})
