import {type Coords, haversine, interiorPoint, pointInRing, signedArea} from './geom.js'
import {type Member, MemberType, type Tags} from './pbf.js'

type Polygons = Coords[][]

/** What the builder knows of a node a relation names: its position, and name and wikidata when it is a `place=*` node. */
export interface NodeLookup {
  at(id: number): [number, number] | null
  place(id: number): {name: string; wikidata: string | null} | undefined
}

/** An area being placed: its polygons and bbox, its point, and whether that point is its own (a member node). */
export interface PlacedArea {
  polygons: Polygons
  b: number[]
  point: [number, number]
  pinned: boolean
}

/** Whether a point lies inside the polygons (outer rings minus their holes). */
export function insidePolygons(x: number, y: number, polygons: Polygons, b: number[]): boolean {
  return x >= b[0] && x <= b[2] && y >= b[1] && y <= b[3] && polygons.some((p) => pointInRing(x, y, p[0]) && !p.slice(1).some((h) => pointInRing(x, y, h)))
}

/**
 * Where an area's point sits, as Nominatim places a boundary: its `label` member node, else its
 * `admin_centre` member when that is the place node the area stands for (same name or wikidata),
 * either only when inside the area; else (not pinned) the middle of the widest span across its
 * largest part, always inside it (`settlePoints` may move it onto land).
 */
export function areaPoint(members: Member[], tags: Tags, polygons: Polygons, b: number[], nodes: NodeLookup): {point: [number, number]; pinned: boolean} {
  const member = (role: string, fits: (id: number) => boolean) => {
    for (const m of members) {
      if (m.type !== MemberType.Node || m.role !== role || !fits(m.ref)) continue
      const at = nodes.at(m.ref)
      if (at && insidePolygons(at[0], at[1], polygons, b)) return at
    }
    return null
  }
  const standsFor = (id: number) => {
    const place = nodes.place(id)
    return !!place && (place.name === tags.name || (!!place.wikidata && place.wikidata === tags.wikidata))
  }
  const own = member('label', () => true) ?? member('admin_centre', standsFor)
  if (own) return {point: own, pinned: true}
  const largest = polygons.reduce((best, p) => (Math.abs(signedArea(p[0])) > Math.abs(signedArea(best[0])) ? p : best))
  return {point: interiorPoint(largest), pinned: false}
}

/**
 * Moves the point of an area without a member node onto the part its sub-areas cover: countries
 * and some states reach over territorial waters where their municipalities stop at the coast, so
 * a point inside the area but inside none of its sub-areas is taken for water and replaced by the
 * nearest sub-area's point. `parents[i]` is the index of area i's parent, -1 for none; sub-areas
 * are settled before their parents.
 */
export function settlePoints(areas: PlacedArea[], parents: number[]): void {
  const children = areas.map((): number[] => [])
  parents.forEach((p, i) => p >= 0 && children[p].push(i))
  const settled = new Uint8Array(areas.length)
  const settle = (i: number): void => {
    if (settled[i]) return
    settled[i] = 1
    const a = areas[i], subs = children[i]
    for (const s of subs) settle(s)
    if (a.pinned || !subs.length) return
    const [x, y] = a.point
    if (subs.some((s) => insidePolygons(x, y, areas[s].polygons, areas[s].b))) return
    let best = subs[0], bestD = Infinity
    for (const s of subs) {
      const d = haversine(x, y, areas[s].point[0], areas[s].point[1])
      if (d < bestD) [best, bestD] = [s, d]
    }
    a.point = areas[best].point
  }
  for (let i = 0; i < areas.length; i++) settle(i)
}
