import {haversine, round7} from './geom.js'
import type {BuiltCounts, MapBuilder, Phase, Rel, Statements} from './build.js'
import {MemberType} from './pbf.js'

// The road network for routing: graph nodes, edges with their attributes, turn restrictions.

type Source = Pick<MapBuilder, 'nodes' | 'ways' | 'roads' | 'relations'>
type Tick = (phase: Phase, done: number, total: number) => Promise<void>

/**
 * Splits routable ways at every node shared with another routable way (and at their ends) into
 * edges between graph nodes. Graph node ids are dense (1..n) so routing can index arrays by them.
 */
export async function writeRoadGraph(map: Source, st: Statements, built: BuiltCounts, tick: Tick): Promise<void> {
  const {nodes, ways, roads} = map
  const use = new Uint8Array(nodes.size)
  for (const {w} of roads) {
    // A run of present nodes between missing ones is a way of its own: no edge crosses a gap.
    const all = ways.allNodes(w)
    for (let i = 0; i < all.length; i++) {
      const n = all[i]
      if (n < 0) continue
      if (use[n] < 2) use[n]++
      if (i === 0 || i === all.length - 1 || all[i - 1] < 0 || all[i + 1] < 0) use[n] = 2
    }
  }
  const graphId = new Int32Array(nodes.size)
  const restricted = restrictionWays(map.relations)
  const wayEdges = new Map<number, number[]>()
  const nodeOf = (n: number) => {
    if (graphId[n] === 0) {
      graphId[n] = ++built.graphNodes
      st.graphNode.run(graphId[n], nodes.id(n), round7(nodes.lon(n) / 1e7), round7(nodes.lat(n) / 1e7))
    }
    return graphId[n]
  }
  for (let r = 0; r < roads.length; r++) {
    if ((r & 0x3fff) === 0) await tick('roads', r, roads.length)
    const {w, a, x: extra, id: wayId, name, ref} = roads[r]
    const idx = ways.allNodes(w)
    let start = 0
    while (start < idx.length && idx[start] < 0) start++
    for (let i = start + 1; i < idx.length; i++) {
      if (idx[i] < 0) {
        while (i + 1 < idx.length && idx[i + 1] < 0) i++
        start = i + 1
        i++ // the node after a gap starts the next edge
        continue
      }
      if (use[idx[i]] < 2) continue
      const geom = new Int32Array((i - start + 1) * 2)
      let length = 0
      const b = [Infinity, Infinity, -Infinity, -Infinity]
      for (let k = start; k <= i; k++) {
        const n = idx[k]
        const x7 = nodes.lon(n), y7 = nodes.lat(n)
        geom[(k - start) * 2] = x7
        geom[(k - start) * 2 + 1] = y7
        const x = x7 / 1e7, y = y7 / 1e7
        if (k > start) length += haversine(geom[(k - start - 1) * 2] / 1e7, geom[(k - start - 1) * 2 + 1] / 1e7, x, y)
        if (x < b[0]) b[0] = x
        if (y < b[1]) b[1] = y
        if (x > b[2]) b[2] = x
        if (y > b[3]) b[3] = y
      }
      const source = nodeOf(idx[start]), target = nodeOf(idx[i])
      const edgeId = ++built.edges
      st.edge.run(edgeId, source, target, wayId, Math.round(length * 100) / 100, a.cls, name, ref, a.maxspeed, a.oneway,
        a.car, a.truck, a.bike, a.foot, +a.toll, +a.ferry, +a.bridge, +a.tunnel, Buffer.from(geom.buffer, geom.byteOffset, geom.byteLength))
      st.edgeBox.run(edgeId, b[0], b[2], b[1], b[3])
      st.edgeAttrs.run(edgeId, extra.highway, extra.maxspeedForward, extra.maxspeedBackward, extra.maxheight, extra.maxweight, extra.maxwidth, extra.maxlength, +extra.noHazmat, +extra.destination, +extra.motorroad)
      if (restricted.has(wayId)) {
        const list = wayEdges.get(wayId) ?? []
        list.push(edgeId, source, target, a.car)
        wayEdges.set(wayId, list)
      }
      start = i
    }
  }
  turnRestrictions(map, st, built, wayEdges, graphId)
}

function restrictionWays(relations: Rel[]): Set<number> {
  const set = new Set<number>()
  for (const r of relations) {
    if (r.tags.type !== 'restriction') continue
    for (const m of r.members) if (m.type === MemberType.Way) set.add(m.ref)
  }
  return set
}

function turnRestrictions(map: Source, st: Statements, built: BuiltCounts, wayEdges: Map<number, number[]>, graphId: Int32Array): void {
  const edgesOf = (way: number | undefined): RoadEdge[] => {
    const list = way === undefined ? undefined : wayEdges.get(way)
    const out: RoadEdge[] = []
    if (list) for (let i = 0; i < list.length; i += 4) out.push({id: list[i], source: list[i + 1], target: list[i + 2], car: list[i + 3]})
    return out
  }
  const edgeAt = (way: number | undefined, nodes: Set<number>) => edgesOf(way).find((e) => nodes.has(e.source) || nodes.has(e.target))?.id ?? null
  for (const rel of map.relations) {
    const t = rel.tags
    if (t.type !== 'restriction') continue
    const key = Object.keys(t).find((k) => k === 'restriction' || k.startsWith('restriction:'))
    const from = rel.members.find((m) => m.role === 'from' && m.type === MemberType.Way)?.ref
    const to = rel.members.find((m) => m.role === 'to' && m.type === MemberType.Way)?.ref
    if (!key || from === undefined || to === undefined) continue
    const via = rel.members.filter((m) => m.role === 'via')
    const viaNode = via.find((m) => m.type === MemberType.Node)?.ref ?? null
    const viaWays = via.filter((m) => m.type === MemberType.Way).map((m) => m.ref)
    let fromEdge: number | null = null, toEdge: number | null = null, viaGraphNode: number | null = null, viaEdges: string | null = null
    if (viaWays.length) {
      // via nodes listed beside via ways (a common mistake) are the ways' junctions: the ways say it all
      const chain = viaWayChain(edgesOf(from), viaWays.flatMap(edgesOf), edgesOf(to))
      if (chain) {
        fromEdge = chain.from
        toEdge = chain.to
        viaEdges = chain.via.join(',')
      }
    } else if (viaNode !== null) {
      const n = map.nodes.indexOf(viaNode)
      if (n >= 0 && graphId[n]) {
        viaGraphNode = graphId[n]
        fromEdge = edgeAt(from, new Set([viaGraphNode]))
        toEdge = edgeAt(to, new Set([viaGraphNode]))
      }
    }
    st.restriction.run(++built.turnRestrictions, rel.id, t[key], key === 'restriction' ? null : key.slice('restriction:'.length), t.except ?? null,
      from, viaGraphNode, viaWays[0] ?? null, to, fromEdge, toEdge, viaEdges)
  }
}

/** An edge of the road graph: map.db ids of the edge and its two graph nodes; `car`: bit 0 source→target open, bit 1 target→source. */
export interface RoadEdge {id: number; source: number; target: number; car: number}

/**
 * How a via-way restriction is travelled: the from way's edge that arrives at the via ways, the via
 * edges in travel order (signed: +id source→target, -id target→source) and the to way's edge that
 * leaves them. The via edges (of one or several ways, in any order) must form one simple path; the
 * from and to ways join it at two of its nodes, normally its ends (where they touch it at several,
 * the pair farthest apart along it). Null when the via edges do not form a path or the ways do not
 * both touch it.
 */
export function viaWayChain(from: RoadEdge[], via: RoadEdge[], to: RoadEdge[]): {from: number; via: number[]; to: number} | null {
  if (!via.length) return null
  const degree = new Map<number, number>()
  for (const e of via) for (const n of [e.source, e.target]) degree.set(n, (degree.get(n) ?? 0) + 1)
  const ends = [...degree].filter(([, d]) => d === 1).map(([n]) => n)
  if (ends.length !== 2 || [...degree.values()].some((d) => d > 2)) return null
  // the path's nodes in order and the signed edge from each to the next
  const nodes = [ends[0]], steps: number[] = []
  const used = new Set<number>()
  for (let at = ends[0]; at !== ends[1];) {
    const e = via.find((x) => !used.has(x.id) && (x.source === at || x.target === at))
    if (!e) return null
    used.add(e.id)
    steps.push(e.source === at ? e.id : -e.id)
    at = e.source === at ? e.target : e.source
    nodes.push(at)
  }
  if (used.size !== via.length) return null
  // A from or to way that runs on past the via touches it with two edges: the one a car may
  // drive into (out of) the via is meant, when only one may; else the first.
  const touching = (edges: RoadEdge[], n: number, into: boolean) => {
    const all = edges.filter((e) => e.source === n || e.target === n)
    const open = all.filter((e) => e.car & ((e.target === n) === into ? 1 : 2))
    return open.length === 1 ? open[0] : all[0]
  }
  let best: {i: number; j: number; f: RoadEdge; t: RoadEdge} | null = null
  for (let i = 0; i < nodes.length; i++) {
    const f = touching(from, nodes[i], true)
    if (!f) continue
    for (let j = 0; j < nodes.length; j++) {
      const t = i === j ? undefined : touching(to, nodes[j], false)
      if (t && (!best || Math.abs(i - j) > Math.abs(best.i - best.j))) best = {i, j, f, t}
    }
  }
  if (!best) return null
  const {i, j} = best
  const chain = i < j ? steps.slice(i, j) : steps.slice(j, i).reverse().map((x) => -x)
  return {from: best.f.id, via: chain, to: best.t.id}
}
