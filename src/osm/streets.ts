import {type Coords, bbox, lineLength, round7, toPositions} from './geom.js'
import type {BuiltCounts, MapBuilder, Phase, Statements} from './build.js'

/** Street class of a merged street: the highest-ranked class among its ways. */
const ROAD_RANK: Record<string, number> = {motorway: 9, trunk: 8, primary: 7, secondary: 6, tertiary: 5, minor: 4, service: 3, track: 2, path: 1, ferry: 0}

type Source = Pick<MapBuilder, 'streetWays' | 'streetNames' | 'ways' | 'coords' | 'countries'>
type Tick = (phase: Phase, done: number, total: number) => Promise<void>

/**
 * One street per name, area and country: same-named ways are merged when they share a node or lie
 * within ~200 m of each other, so "Main Street" in two towns stays two streets; a merged street
 * that may cross a border is then split by the country of each way's middle vertex, so each part
 * has its own point and country (Avenue Princesse Grace in Monaco and in Roquebrune-Cap-Martin).
 */
export async function writeStreets(map: Source, st: Statements, built: BuiltCounts, tick: Tick): Promise<void> {
  const gap = 0.002
  let done = 0
  for (const [name, {ways: list, cls: classes}] of map.streetWays) {
    if ((done++ & 0x3ff) === 0) await tick('streets', done, map.streetWays.size)
    const parent = list.map((_, i) => i)
    const find = (i: number): number => (parent[i] === i ? i : (parent[i] = find(parent[i])))
    const boxes = list.map((w) => bbox(map.coords(map.ways.nodes(w))))
    const byNode = new Map<number, number>()
    list.forEach((w, i) => {
      for (const n of map.ways.nodes(w)) {
        const j = byNode.get(n)
        if (j === undefined) byNode.set(n, i)
        else parent[find(i)] = find(j)
      }
    })
    if (list.length <= 2000) {
      for (let i = 0; i < list.length; i++) {
        for (let j = i + 1; j < list.length; j++) {
          const a = boxes[i], b = boxes[j]
          if (a[0] - gap <= b[2] && b[0] - gap <= a[2] && a[1] - gap <= b[3] && b[1] - gap <= a[3]) parent[find(i)] = find(j)
        }
      }
    }
    const groups = new Map<number, number[]>()
    list.forEach((_, i) => {
      const g = groups.get(find(i))
      if (g) g.push(i)
      else groups.set(find(i), [i])
    })
    for (const members of byCountry(map, list, boxes, [...groups.values()])) {
      const lines: Coords[] = members.map((i) => map.coords(map.ways.nodes(list[i])))
      let cls = 'path', length = 0, longest = lines[0]
      const b = [Infinity, Infinity, -Infinity, -Infinity]
      for (let k = 0; k < members.length; k++) {
        const rc = classes[members[k]]
        if (ROAD_RANK[rc] > ROAD_RANK[cls]) cls = rc
        const len = lineLength(lines[k])
        length += len
        if (len > lineLength(longest)) longest = lines[k]
        bbox(lines[k], b)
      }
      const mid = (longest.length >> 2) * 2
      const rowId = ++built.streets
      st.street.run(rowId, name, cls, members.length, Math.round(length), round7(longest[mid]), round7(longest[mid + 1]),
        JSON.stringify({type: 'MultiLineString', coordinates: lines.map(toPositions)}))
      st.streetBox.run(rowId, b[0], b[2], b[1], b[3])
      const names = mergedNames(members.map((i) => map.streetNames.get(list[i])))
      if (names) st.names.run('street', rowId, names)
    }
  }
}

/** A street's part in another country shorter than this is a way drawn just across the line: it stays with the longest part. */
const MIN_PART_M = 50

/** Groups (indexes into `list`) split by the country of each way's middle vertex where their bbox may hold two countries. */
function byCountry(map: Source, list: number[], boxes: number[][], groups: number[][]): number[][] {
  const out: number[][] = []
  for (const members of groups) {
    const b = [Infinity, Infinity, -Infinity, -Infinity]
    for (const i of members) [b[0], b[1], b[2], b[3]] = [Math.min(b[0], boxes[i][0]), Math.min(b[1], boxes[i][1]), Math.max(b[2], boxes[i][2]), Math.max(b[3], boxes[i][3])]
    if (members.length === 1 || !map.countries.mayCross(b)) {
      out.push(members)
      continue
    }
    const parts = new Map<string | null, {ways: number[]; length: number}>()
    for (const i of members) {
      const line = map.coords(map.ways.nodes(list[i]))
      const mid = (line.length >> 2) * 2
      const cc = map.countries.at(line[mid], line[mid + 1])
      const part = parts.get(cc) ?? {ways: [], length: 0}
      part.ways.push(i)
      part.length += lineLength(line)
      parts.set(cc, part)
    }
    const sorted = [...parts.values()].sort((x, y) => y.length - x.length)
    for (const part of sorted.slice(1)) if (part.length < MIN_PART_M) sorted[0].ways.push(...part.ways)
    out.push(...sorted.filter((part, k) => k === 0 || part.length >= MIN_PART_M).map((part) => part.ways))
  }
  return out
}

/** The names of a street's ways in one JSON object: per key, the value most of its ways give (the first on a tie). */
function mergedNames(jsons: (string | undefined)[]): string | null {
  const votes = new Map<string, Map<string, number>>()
  for (const json of jsons) {
    if (!json) continue
    for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, string>)) {
      const m = votes.get(k) ?? new Map<string, number>()
      m.set(v, (m.get(v) ?? 0) + 1)
      votes.set(k, m)
    }
  }
  if (!votes.size) return null
  const out: Record<string, string> = {}
  for (const [k, m] of votes) {
    let best = '', n = 0
    for (const [v, c] of m) if (c > n) [best, n] = [v, c]
    out[k] = best
  }
  return JSON.stringify(out)
}
