import {describe, expect, it} from 'vitest'
import {footprintCentroid, footprintRing, simplifiedRing} from '../../src/geofences/footprint.js'
import type {Position} from '../../src/geofences/geometry.js'

const square = (x: number, y: number, d: number, ccw = true): Position[] => {
  const ring: Position[] = [[x, y], [x + d, y], [x + d, y + d], [x, y + d], [x, y]]
  return ccw ? ring : ring.reverse()
}

describe('footprintCentroid', () => {
  it('takes holes out and weighs parts by area, whichever way the rings are wound', () => {
    // 2×2 square less its 1×1 corner: (4·(1,1) − 1·(0.5,0.5)) / 3
    const holed = footprintCentroid([[square(0, 0, 2), square(0, 0, 1, false)]])
    expect(holed).toEqual([1.166667, 1.166667])
    expect(footprintCentroid([[square(0, 0, 2, false), square(0, 0, 1)]])).toEqual(holed)
    // a 1×1 part at (0,0) and a 2×2 part at (3,0): (1·(0.5,0.5) + 4·(4,1)) / 5
    expect(footprintCentroid([[square(0, 0, 1)], [square(3, 0, 2)]])).toEqual([3.3, 0.9])
  })

  it('is null for a footprint without area', () => {
    expect(footprintCentroid([[[[1, 1], [2, 2], [1, 1], [1, 1]]]])).toBeNull()
  })
})

describe('footprintRing', () => {
  it('is the outer ring without holes; several parts are refused', () => {
    expect(footprintRing([[square(0, 0, 2), square(0, 0, 1, false)]])).toEqual({ring: square(0, 0, 2)})
    expect(footprintRing([[square(0, 0, 1)], [square(3, 0, 2)]])).toEqual({problem: 'has 2 separate parts'})
  })

  it('keeps at most the allowed positions, the ring still closed', () => {
    const ring: Position[] = Array.from({length: 5000}, (_, i) => {
      const t = (2 * Math.PI * i) / 5000
      return [Math.cos(t) * (1 + 0.1 * Math.sin(50 * t)), Math.sin(t)]
    })
    ring.push(ring[0])
    const kept = simplifiedRing(ring, 300)
    expect(kept.length).toBeLessThanOrEqual(300)
    expect(kept.length).toBeGreaterThan(250)
    expect(kept[0]).toEqual(ring[0])
    expect(kept.at(-1)).toEqual(ring[0])
  })
})
