import {describe, expect, it} from 'vitest'
import {type PlacedArea, areaPoint, settlePoints} from '../../src/osm/area-point.js'
import {bbox} from '../../src/osm/geom.js'
import {MemberType} from '../../src/osm/pbf.js'

const square = (x0: number, y0: number, x1: number, y1: number) => [[[x0, y0, x1, y0, x1, y1, x0, y1, x0, y0]]]
const nodes = {at: (id: number): [number, number] | null => (id === 1 ? [9.5, 9.5] : id === 2 ? [50, 50] : null), place: () => undefined}
const area = (polygons: number[][][], members = [] as {type: MemberType; ref: number; role: string}[]): PlacedArea => {
  const b = bbox(polygons[0][0])
  return {polygons, b, ...areaPoint(members, {}, polygons, b, nodes)}
}

describe('an admin area without a label or admin_centre node', () => {
  it('sits on the part its sub-areas cover when its own point lies in none of them (a country over its waters)', () => {
    // a "country" of 10 × 10 whose only municipality is its north-east corner
    const areas = [area(square(0, 0, 10, 10)), area(square(8, 8, 10, 10))]
    expect(areas[0].point).toEqual([5, 5 + 10 * 1e-7])
    settlePoints(areas, [-1, 0])
    expect(areas[0].point).toEqual(areas[1].point)
    expect(areas[1].point[0]).toBeGreaterThan(8)
  })

  it('keeps its point when a sub-area holds it, when it has none, and when a member node placed it', () => {
    const held = [area(square(0, 0, 10, 10)), area(square(4, 4, 6, 6)), area(square(8, 8, 10, 10))]
    const before = held[0].point
    settlePoints(held, [-1, 0, 0])
    expect(held[0].point).toEqual(before)
    const alone = [area(square(0, 0, 10, 10))]
    settlePoints(alone, [-1])
    expect(alone[0].point).toEqual(before)
    // a label node inside wins; one outside the area is ignored
    const labelled = [area(square(0, 0, 10, 10), [{type: MemberType.Node, ref: 1, role: 'label'}]), area(square(0, 0, 2, 2))]
    settlePoints(labelled, [-1, 0])
    expect(labelled[0]).toMatchObject({point: [9.5, 9.5], pinned: true})
    expect(area(square(0, 0, 10, 10), [{type: MemberType.Node, ref: 2, role: 'label'}]).pinned).toBe(false)
  })
})
