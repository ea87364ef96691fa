import {describe, expect, it} from 'vitest'
import {circleShare, confidenceOf, ringShare} from '../../src/geofences/confidence.js'

/** The share of the disc inside a circle by brute force on a fine grid: the reference. */
function gridShare(d: number, r: number, R: number): number {
  let inside = 0, total = 0
  const n = 400
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      const x = -r + ((i + 0.5) / n) * 2 * r, y = -r + ((j + 0.5) / n) * 2 * r
      if (x * x + y * y > r * r) continue
      total++
      if ((x - d) ** 2 + y * y <= R * R) inside++
    }
  }
  return inside / total
}

describe('accuracy-disc confidence', () => {
  it('circles: the lens share equals a brute-force grid within 0.5 %', () => {
    for (const [d, r, R] of [[0, 50, 100], [80, 50, 100], [120, 50, 100], [200, 200, 100], [100, 150, 100], [30, 300, 100]]) {
      expect(Math.abs(circleShare(d, r, R) - gridShare(d, r, R)), `${d} ${r} ${R}`).toBeLessThan(0.005)
    }
    // the case: a 200 m fix centred 100 m outside a 100 m circle is low confidence
    expect(confidenceOf(circleShare(200, 200, 100))).toBe(1)
  })

  it('polygons: the share equals the lens of a 256-gon circle within 0.1 %, and the sampled grown share within 3 %', () => {
    const R = 100
    const xs0 = new Float64Array(257), ys0 = new Float64Array(257)
    let worst = 0
    for (const [d, r] of [[0, 50], [60, 50], [100, 50], [130, 50], [100, 100], [50, 150], [150, 80], [99, 20]]) {
      for (let k = 0; k <= 256; k++) {
        const a = (2 * Math.PI * k) / 256
        xs0[k] = R * Math.cos(a) - d
        ys0[k] = R * Math.sin(a)
      }
      worst = Math.max(worst, Math.abs(ringShare(xs0, ys0, 257, r) - circleShare(d, r, R)))
      // grown by 10 m: the sampled share against the circle of radius R + 10
      expect(Math.abs(ringShare(xs0, ys0, 257, r, 10) - circleShare(d, r, R + 10)), `grown ${d} ${r}`).toBeLessThan(0.03)
    }
    expect(worst).toBeLessThan(0.001)
  })

  it('whole disc inside is 3, at least half 2, any part 1, none 0; a crossing disc is never 3', () => {
    expect([1, 0.5, 0.49, 0.01, 0].map(confidenceOf)).toEqual([3, 2, 1, 1, 0])
    const xs = Float64Array.from([-100, 100, 100, -100, -100]), ys = Float64Array.from([-100, -100, 100, 100, -100])
    expect(ringShare(xs, ys, 5, 50)).toBe(1)
    expect(ringShare(xs, ys, 5, 101)).toBeLessThan(1)
    const far = Float64Array.from([400, 600, 600, 400, 400])
    expect(ringShare(far, ys, 5, 50)).toBe(0)
  })
})
