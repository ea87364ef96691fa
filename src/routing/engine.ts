import Flatbush from 'flatbush'
import type {Engine} from '../map/mapdata.js'
import type {MapBlob} from '../map/blob.js'
import type {RoadInfo} from './names.js'
import type {ModeGraph} from './stage.js'
import {bearing} from './path.js'
import {type Seed, Search} from './search.js'
import {Spaces} from './spaces.js'
import {ArcLabels, turnsRound, withoutUturns} from './uturns.js'
import {type Snap, type SnapNetwork, edgeSlice, snap} from './snap.js'

export interface Cost {
  /** deciseconds (the real duration; routes minimise a weight that adds penalties) */
  w: number
  meters: number
}

export interface Path extends Cost {
  /** base arc ids (2e + d) travelled, in order; the first and last are partial */
  arcs: number[]
  from: Snap
  to: Snap
  /** where it arrives, for a next leg to go on from */
  end: Entry
}

/**
 * How a route arrived at its end: the arc it ends on and the node (or turn-restriction copy) that
 * arc was heading to; at a node, arc -1 and that node (or copy). A next leg leaving along the same
 * arc (or from the node) starts there, so a turn restriction under way is not forgotten at an
 * intermediate location.
 */
export interface Entry {arc: number; node: number}

const INF = Infinity
/** A snapped point this close (metres along its edge) to a node is at the node: it may leave or arrive by any of its arcs. */
const AT_NODE_M = 1

/** The network arrays shared by every mode, viewed straight from `route-edges.bin`. */
export class Network implements SnapNetwork {
  readonly nodes: Int32Array
  readonly src: Uint32Array
  readonly dst: Uint32Array
  readonly geomOff: Uint32Array
  readonly geom: Int32Array
  readonly length: Float32Array
  readonly cls: Uint8Array
  readonly flags: Uint8Array
  readonly access: Uint8Array
  readonly bush: Flatbush

  constructor(b: MapBlob) {
    this.nodes = b.array('nodes', Int32Array)
    this.src = b.array('src', Uint32Array)
    this.dst = b.array('dst', Uint32Array)
    this.geomOff = b.array('geomOff', Uint32Array)
    this.geom = b.array('geom', Int32Array)
    this.length = b.array('length', Float32Array)
    this.cls = b.array('cls', Uint8Array)
    this.flags = b.array('flags', Uint8Array)
    this.access = b.array('access', Uint8Array)
    const bush = b.section('bush')
    this.bush = Flatbush.from(bush.buffer as ArrayBuffer, bush.byteOffset)
  }
}

function graphOf(b: MapBlob): ModeGraph {
  const u = (s: string) => b.array(s, Uint32Array)
  const i = (s: string) => b.array(s, Int32Array)
  const f = (s: string) => b.array(s, Float32Array)
  const names = new Set(b.names())
  const has = (s: string) => names.has(s) // durations apart from weights: blobs built before them have only weights
  return {
    rank: u('rank'), orig: u('orig'), shortcuts: 0,
    upOff: u('upOff'), upTo: u('upTo'), upW: u('upW'), upT: has('upT') ? u('upT') : u('upW'), upD: f('upD'), upX: i('upX'),
    dnOff: u('dnOff'), dnFrom: u('dnFrom'), dnW: u('dnW'), dnT: has('dnT') ? u('dnT') : u('dnW'), dnD: f('dnD'), dnX: i('dnX'),
    gOff: u('gOff'), gTo: u('gTo'), gW: u('gW'), gX: i('gX'),
    arcTo: i('arcTo'), arcW: u('arcW'), arcT: has('arcT') ? u('arcT') : u('arcW'), tiny: b.array('tiny', Uint8Array), srcOff: u('srcOff'), srcs: u('srcs'),
  }
}

/**
 * Whether a start may leave along direction d (0: towards the edge's target) of its edge: always
 * without a `heading`, else when the edge's bearing there (over ±5 m) lies within 90° of it.
 */
function leaves(net: Network, s: Snap, d: number): boolean {
  if (s.heading === undefined) return true
  const len = net.length[s.edge] || 1, dt = Math.min(0.5, 5 / len)
  const t0 = Math.max(0, Math.min(1 - 2 * dt, s.t - dt))
  const pts = edgeSlice(net, s.edge, t0, t0 + 2 * dt)
  const b = (bearing(pts[0], pts[pts.length - 1]) + (d ? 180 : 0)) % 360
  const diff = Math.abs(((b - s.heading + 540) % 360) - 180)
  return diff <= 90
}

/**
 * Routing for one mode of one region: snapping, contraction-hierarchy queries (point to point and
 * many to many), plain Dijkstra (for `avoid`, isochrones and as the reference), path unpacking.
 */
export class ModeRouter {
  readonly g: ModeGraph
  private readonly fwd: Search
  private readonly bwd: Search
  /** matrix buckets: the first entry at each node, -1 when none (all -1 between calls) */
  private bucketHead?: Int32Array
  /** the copies of each plain node (CSR), built on first use */
  private copyOff?: Uint32Array
  private copyList?: Uint32Array
  private spaceCache?: Spaces
  private arcLabels?: ArcLabels

  constructor(readonly net: Network, blob: MapBlob, readonly k: number) {
    this.g = graphOf(blob)
    this.fwd = new Search(this.g.rank.length)
    this.bwd = new Search(this.g.rank.length)
  }

  /** Snaps to the nearest edge outside small islands and avoided roads; failing that, to any edge of the mode. */
  snap(lon: number, lat: number, maxMeters: number, avoid = 0): Snap | null {
    const {tiny} = this.g, {flags} = this.net
    return snap(this.net, this.k, lon, lat, maxMeters, (e) => tiny[e] === 1 || (flags[e] & avoid) !== 0) ?? snap(this.net, this.k, lon, lat, maxMeters)
  }

  /**
   * Seeds leaving a snapped point: along each direction of its edge the mode may travel (and its
   * `heading` allows), into the node (or the copy for turn restrictions) that arc reaches. A point
   * right at an end of its edge (without `heading`) is that node: it may leave by any arc, and no
   * turn restriction is under way.
   */
  sources(s: Snap, entry?: Entry): Seed[] {
    const out: Seed[] = []
    const end = this.endOf(s)
    if (end >= 0 && s.heading === undefined) {
      // a zero-length piece of the edge, ending at the node
      const v = end ? this.net.dst[s.edge] : this.net.src[s.edge]
      out.push({node: entry && this.g.orig[entry.node] === v ? entry.node : v, w: 0, t: 0, m: 0, arc: 2 * s.edge + (end ? 0 : 1)})
      return out
    }
    for (let d = 0; d < 2; d++) {
      const a = 2 * s.edge + d
      if (this.g.arcTo[a] < 0 || !leaves(this.net, s, d)) continue
      const rest = d ? s.t : 1 - s.t
      out.push({node: this.entryNode(a, entry), w: rest * this.g.arcW[a], t: rest * this.g.arcT[a], m: rest * this.net.length[s.edge], arc: a})
    }
    return out
  }

  /** The node leaving along arc a leads to: where `entry` was heading when it ended on a, else a's plain head. */
  entryNode(a: number, entry?: Entry): number {
    return entry && entry.arc === a ? entry.node : this.g.arcTo[a]
  }

  /** Where a path whose search ended at node v with (target) arc x arrives. */
  endAt(v: number, x: number, to: Snap): Entry {
    if (this.endOf(to) >= 0) return {arc: -1, node: v} // at a node: v is that node, in the state it was reached
    const g = this.g
    for (let i = g.gOff[v]; i < g.gOff[v + 1]; i++) if (g.gX[i] === x) return {arc: x, node: g.gTo[i]}
    return {arc: x, node: g.arcTo[x]}
  }

  /**
   * Seeds of the backward search: the nodes whose arcs lead onto the snapped point (the copies of
   * a node only where turn restrictions let them take the arc). A point right at an end of its
   * edge is that node, however it is reached: the node and all its copies.
   */
  targets(s: Snap): Seed[] {
    const out: Seed[] = []
    const end = this.endOf(s)
    if (end >= 0) {
      // reached by any arc into the node, in any state; the path ends on a zero-length piece
      const arc = 2 * s.edge + (end ? 1 : 0)
      this.copies(end ? this.net.dst[s.edge] : this.net.src[s.edge], (node) => out.push({node, w: 0, t: 0, m: 0, arc}))
      return out
    }
    for (let d = 0; d < 2; d++) {
      const a = 2 * s.edge + d
      if (this.g.arcTo[a] < 0) continue
      const part = d ? 1 - s.t : s.t
      for (let i = this.g.srcOff[a]; i < this.g.srcOff[a + 1]; i++) out.push({node: this.g.srcs[i], w: part * this.g.arcW[a], t: part * this.g.arcT[a], m: part * this.net.length[s.edge], arc: a})
    }
    return out
  }

  /** 0 or 1 when the snapped point lies within AT_NODE_M of its edge's source or target, else -1. */
  endOf(s: Snap): number {
    const len = this.net.length[s.edge]
    return s.t * len < AT_NODE_M ? 0 : (1 - s.t) * len < AT_NODE_M ? 1 : -1
  }

  /** Calls `fn` with node v and each copy turn restrictions made of it. */
  private copies(v: number, fn: (node: number) => void): void {
    fn(v)
    const base = this.net.nodes.length / 2, orig = this.g.orig
    if (!this.copyOff) {
      const off = new Uint32Array(base + 1)
      for (let c = base; c < orig.length; c++) off[orig[c] + 1]++
      for (let i = 0; i < base; i++) off[i + 1] += off[i]
      const at = off.slice(0, base), list = new Uint32Array(orig.length - base)
      for (let c = base; c < orig.length; c++) list[at[orig[c]]++] = c
      this.copyOff = off
      this.copyList = list
    }
    for (let i = this.copyOff[v]; i < this.copyOff[v + 1]; i++) fn(this.copyList![i])
  }

  /** Travel along the shared edge when both points lie on it, in a direction the mode may go. */
  direct(from: Snap, to: Snap): (Cost & {weight: number; arc: number}) | null {
    if (from.edge !== to.edge) return null
    const e = from.edge
    const d = to.t >= from.t ? 0 : 1
    const a = 2 * e + d
    if (this.g.arcTo[a] < 0 || !leaves(this.net, from, d)) return null
    const f = Math.abs(to.t - from.t)
    return {weight: f * this.g.arcW[a], w: f * this.g.arcT[a], meters: f * this.net.length[e], arc: a}
  }

  /** Fastest route cost between two snapped points (contraction hierarchy), or null when none. */
  cost(from: Snap, to: Snap): Cost | null {
    const r = this.query(from, to)
    return r && {w: r.w, meters: r.meters}
  }

  /**
   * The fastest path (contraction hierarchy; plain Dijkstra with `avoid`), going on from `entry`
   * when the previous leg ended there. Cars and trucks turn round only where nothing else leads on
   * (a dead end) or at a location (`uturns: true` allows it anywhere, as bikes and walkers may):
   * a route that would turn round elsewhere is mended there (withoutUturns).
   */
  route(from: Snap, to: Snap, entry?: Entry, opts: {avoid?: number; uturns?: boolean} = {}): Path | null {
    const avoid = opts.avoid ?? 0
    const p = avoid ? this.dijkstra(from, {to, avoid, entry}).path : this.fastest(from, to, entry)
    return !p || opts.uturns ? p : this.mend(p, {entry, avoid})
  }

  /** `p` with every turn round a car or truck may not make mended (see `route`). */
  mend(p: Path, opts: {entry?: Entry; avoid?: number} = {}): Path {
    if (this.k >= 2 || !turnsRound(this, p)) return p
    return withoutUturns(this, (this.arcLabels ??= new ArcLabels(this.g.gTo.length)), p, opts)
  }

  private fastest(from: Snap, to: Snap, entry?: Entry): Path | null {
    const r = this.query(from, to, entry)
    if (!r) return null
    if (r.meet < 0) return {w: r.w, meters: r.meters, arcs: [r.arc], from, to, end: {arc: r.arc, node: this.entryNode(r.arc, entry)}}
    const arcs = this.unpackPath(r.meet)
    return {w: r.w, meters: r.meters, arcs, from, to, end: this.endAt(this.bwdEnd(r.meet), arcs[arcs.length - 1], to)}
  }

  /** The node where the backward search's chain from v ends (its seed). */
  private bwdEnd(v: number): number {
    while (this.bwd.via[v] >= 0) v = this.bwd.prev[v]
    return v
  }

  private query(from: Snap, to: Snap, entry?: Entry): {w: number; meters: number; meet: number; arc: number} | null {
    const g = this.g, F = this.fwd, B = this.bwd
    F.reset(this.sources(from, entry))
    B.reset(this.targets(to))
    const dir = entry?.arc === -1 ? null : this.direct(from, to) // from a node in a carried state, only the search knows which arcs it may take
    let best = dir ? dir.weight : INF, bestT = dir ? dir.w : 0, bestM = dir ? dir.meters : 0, meet = -1
    const check = (v: number) => {
      if (F.w[v] === INF || B.w[v] === INF) return
      const w = F.w[v] + B.w[v]
      if (w < best) {
        best = w
        bestT = F.t[v] + B.t[v]
        bestM = F.m[v] + B.m[v]
        meet = v
      }
    }
    for (const v of F.touched) check(v)
    while (F.queue.length || B.queue.length) {
      const fk = F.queue.length ? F.queue.peekValue()! : INF
      const bk = B.queue.length ? B.queue.peekValue()! : INF
      if (Math.min(fk, bk) >= best) break
      if (fk <= bk) {
        const v = F.queue.pop()!
        if (fk > F.w[v]) continue
        for (let i = g.upOff[v]; i < g.upOff[v + 1]; i++) {
          const t = g.upTo[i]
          F.relax(v, t, fk + g.upW[i], F.t[v] + g.upT[i], F.m[v] + g.upD[i], i)
          check(t)
        }
      } else {
        const v = B.queue.pop()!
        if (bk > B.w[v]) continue
        for (let i = g.dnOff[v]; i < g.dnOff[v + 1]; i++) {
          const t = g.dnFrom[i]
          B.relax(v, t, bk + g.dnW[i], B.t[v] + g.dnT[i], B.m[v] + g.dnD[i], i)
          check(t)
        }
      }
    }
    if (best === INF) return null
    return {w: bestT, meters: bestM, meet, arc: meet < 0 ? dir!.arc : -1}
  }

  private unpackPath(meet: number): number[] {
    const F = this.fwd, B = this.bwd, g = this.g
    const chain: number[] = []
    let v = meet
    while (F.via[v] >= 0) {
      chain.push(F.prev[v], v, g.upX[F.via[v]])
      v = F.prev[v]
    }
    const out = [F.seedArc[v]]
    for (let i = chain.length - 3; i >= 0; i -= 3) this.unpack(chain[i], chain[i + 1], chain[i + 2], out)
    v = meet
    while (B.via[v] >= 0) {
      const next = B.prev[v]
      this.unpack(v, next, g.dnX[B.via[v]], out)
      v = next
    }
    out.push(B.seedArc[v])
    return out
  }

  /** Appends the base arcs of arc u→w (id x) to `out`. */
  private unpack(u: number, w: number, x: number, out: number[]): void {
    if (x >= 0) {
      out.push(x)
      return
    }
    const m = -x - 1
    this.unpack(u, m, this.arcX(u, m), out)
    this.unpack(m, w, this.arcX(m, w), out)
  }

  private arcX(u: number, w: number): number {
    const g = this.g
    let best = INF, x = 0
    if (g.rank[w] > g.rank[u]) {
      for (let i = g.upOff[u]; i < g.upOff[u + 1]; i++) if (g.upTo[i] === w && g.upW[i] < best) (best = g.upW[i]), (x = g.upX[i])
    } else {
      for (let i = g.dnOff[w]; i < g.dnOff[w + 1]; i++) if (g.dnFrom[i] === u && g.dnW[i] < best) (best = g.dnW[i]), (x = g.dnX[i])
    }
    if (best === INF) throw new Error(`routing: no arc ${u}→${w} to unpack`)
    return x
  }

  /** The cache of single nodes' upward search spaces, emptied: for a run of `matrix` calls (see Spaces). */
  spaces(): Spaces {
    this.spaceCache ??= new Spaces(this.g)
    this.spaceCache.clear()
    return this.spaceCache
  }

  /**
   * Many-to-many costs by buckets: each target's backward upward search space (the union of its
   * seeds' spaces) leaves (target, cost, metres) in a bucket at every node it holds (linked lists
   * in flat arrays); each source's forward space scans the buckets of the nodes it holds. A run of
   * calls over nearby points (map matching) passes one `spaces` to share the seeds' searches.
   */
  matrix(from: Snap[], to: Snap[], spaces = this.spaces()): (Cost | null)[][] {
    const head = (this.bucketHead ??= new Int32Array(this.g.rank.length).fill(-1))
    const next: number[] = [], target: number[] = [], bw: number[] = [], bt: number[] = [], bm: number[] = [], heads: number[] = []
    to.forEach((t, j) => {
      for (const s of this.targets(t)) {
        const id = spaces.get(s.node, true), {node, w, t, m} = spaces
        for (let k = spaces.first[id]; k < spaces.end[id]; k++) {
          const v = node[k]
          if (head[v] < 0) heads.push(v)
          next.push(head[v])
          head[v] = target.length
          target.push(j)
          bw.push(s.w + w[k])
          bt.push(s.t + t[k])
          bm.push(s.m + m[k])
        }
      }
    })
    const rowW = new Float64Array(to.length), rowT = new Float64Array(to.length), rowM = new Float64Array(to.length)
    const rows = from.map((s) => {
      rowW.fill(INF)
      to.forEach((t, j) => {
        const d = this.direct(s, t)
        if (d) (rowW[j] = d.weight), (rowT[j] = d.w), (rowM[j] = d.meters)
      })
      for (const f of this.sources(s)) {
        const id = spaces.get(f.node, false), sp = spaces
        for (let k = sp.first[id]; k < sp.end[id]; k++) {
          const h = head[sp.node[k]]
          if (h < 0) continue
          const w0 = f.w + sp.w[k]
          for (let e = h; e >= 0; e = next[e]) {
            const j = target[e], w = w0 + bw[e]
            if (w > rowW[j]) continue
            const m = f.m + sp.m[k] + bm[e]
            if (w < rowW[j] || m < rowM[j]) (rowW[j] = w), (rowT[j] = f.t + sp.t[k] + bt[e]), (rowM[j] = m)
          }
        }
      }
      return Array.from(rowW, (w, j): Cost | null => (w === INF ? null : {w: rowT[j], meters: rowM[j]}))
    })
    for (const v of heads) head[v] = -1
    return rows
  }

  /**
   * Plain Dijkstra over the uncontracted graph from `from`: to `to` when given (stops once it is
   * settled), else until `limit` deciseconds of weight (the `w` it returns per node). Arcs on edges whose flags meet `avoid` are skipped.
   */
  dijkstra(from: Snap, opts: {to?: Snap; avoid?: number; limit?: number; penalty?: Set<number>; entry?: Entry} = {}): {w: Float64Array; m: Float64Array; touched: number[]; path: Path | null; cost: Cost | null} {
    const g = this.g, F = this.fwd, avoid = opts.avoid ?? 0, limit = opts.limit ?? INF
    const ok = (arc: number) => !(this.net.flags[arc >> 1] & avoid)
    F.reset(this.sources(from, opts.entry).filter((s) => !s.m || ok(s.arc))) // a seed at a node travels none of its edge
    const goal = new Map<number, Seed>()
    if (opts.to) for (const s of this.targets(opts.to)) if ((!s.m || ok(s.arc)) && !(goal.get(s.node)?.w! <= s.w)) goal.set(s.node, s)
    const d = opts.to && opts.entry?.arc !== -1 ? this.direct(from, opts.to) : null
    let best = d && ok(d.arc) ? d.weight : INF, bestT = d ? d.w : 0, bestM = d ? d.meters : 0, end = -1
    while (F.queue.length) {
      const k = F.queue.peekValue()!
      const v = F.queue.pop()!
      if (k > F.w[v]) continue
      if (k >= best || k > limit) break
      const t = goal.get(v)
      if (t && k + t.w < best) {
        best = k + t.w
        bestT = F.t[v] + t.t
        bestM = F.m[v] + t.m
        end = v
      }
      for (let i = g.gOff[v]; i < g.gOff[v + 1]; i++) {
        if (!ok(g.gX[i])) continue
        const w = opts.penalty?.has(g.gX[i] >> 1) ? 3 * g.gW[i] : g.gW[i]
        F.relax(v, g.gTo[i], k + w, F.t[v] + g.arcT[g.gX[i]], F.m[v] + this.net.length[g.gX[i] >> 1], i)
      }
    }
    let path: Path | null = null
    if (opts.to && best < INF) {
      const arcs: number[] = []
      if (end < 0) arcs.push(d!.arc)
      else {
        arcs.push(goal.get(end)!.arc)
        let v = end
        while (F.via[v] >= 0) {
          arcs.push(g.gX[F.via[v]])
          v = F.prev[v]
        }
        arcs.push(F.seedArc[v])
        arcs.reverse()
      }
      const at = end < 0 ? {arc: d!.arc, node: this.entryNode(d!.arc, opts.entry)} : this.endAt(end, arcs[arcs.length - 1], opts.to)
      path = {w: bestT, meters: bestM, arcs, from, to: opts.to, end: at}
    }
    return {w: F.w, m: F.m, touched: F.touched, path, cost: best < INF ? {w: bestT, meters: bestM} : null}
  }
}

/** A region's routers, one per mode, loaded lazily from the region's blobs. */
export class RegionRouting implements Engine {
  private readonly routers = new Map<number, ModeRouter>()
  closed = false

  constructor(readonly net: Network, private readonly loadMode: (k: number) => MapBlob, readonly names?: (edge: number) => RoadInfo) {}

  mode(k: number): ModeRouter {
    let r = this.routers.get(k)
    if (!r) this.routers.set(k, (r = new ModeRouter(this.net, this.loadMode(k), k)))
    return r
  }

  close(): void {
    this.closed = true
  }
}
