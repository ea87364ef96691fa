import type {Hierarchy} from './ch.js'
import FlatQueue from 'flatqueue'

/** Entries the arena holds before it starts over (~20 MB). */
const MAX_ENTRIES = 1 << 20

/**
 * Upward search spaces of single nodes in the contraction hierarchy — forward along `up` arcs, or
 * backward along `dn` arcs — each the nodes the search settles with the weight, duration (integers:
 * sums of integer arcs) and metres from (or to) the node. A many-to-many search from a snapped
 * point is the union of its (one to three) seed nodes' spaces, each shifted by what the seed
 * costs, so points that share a node (edges meeting at a junction, consecutive trace points on one
 * road) share its search. Spaces live in one arena: space `id` is entries first[id] .. end[id] of
 * node/w/t/m, valid until the next `get` (which may grow or clear the arena).
 *
 * Searches stall on demand: a node some higher node reaches more cheaply (by an arc coming down to
 * it) is left out and not expanded, since no shortest path peaks there. Of equally fast ways to a
 * node the shorter counts, so the answer does not depend on the order arcs are stored in.
 */
export class Spaces {
  node = new Uint32Array(4096)
  w = new Uint32Array(4096)
  t = new Uint32Array(4096)
  m = new Float64Array(4096)
  readonly first: number[] = []
  readonly end: number[] = []
  private readonly ids = new Map<number, number>()
  private size = 0
  // the search's scratch: weight (Infinity when untouched), duration, metres per node
  private readonly dist: Float64Array
  private readonly dur: Float64Array
  private readonly len: Float64Array
  private readonly touched: number[] = []
  private readonly queue = new FlatQueue<number>()

  constructor(private readonly g: Hierarchy) {
    const n = g.rank.length
    this.dist = new Float64Array(n).fill(Infinity)
    this.dur = new Float64Array(n)
    this.len = new Float64Array(n)
  }

  get(v: number, backward: boolean): number {
    const key = 2 * v + (backward ? 1 : 0)
    let id = this.ids.get(key)
    if (id === undefined) {
      if (this.size > MAX_ENTRIES) this.clear()
      this.ids.set(key, (id = this.first.length))
      this.first.push(this.size)
      this.build(v, backward)
      this.end.push(this.size)
    }
    return id
  }

  clear(): void {
    this.ids.clear()
    this.first.length = this.end.length = this.size = 0
  }

  private build(v: number, backward: boolean): void {
    const g = this.g, dist = this.dist, dur = this.dur, len = this.len, q = this.queue, touched = this.touched
    const off = backward ? g.dnOff : g.upOff, to = backward ? g.dnFrom : g.upTo
    const W = backward ? g.dnW : g.upW, T = backward ? g.dnT : g.upT, D = backward ? g.dnD : g.upD
    // arcs between the node and higher nodes the other way round: what stalls it
    const sOff = backward ? g.upOff : g.dnOff, sTo = backward ? g.upTo : g.dnFrom, sW = backward ? g.upW : g.dnW
    for (const u of touched) dist[u] = Infinity
    touched.length = 0
    q.clear()
    dist[v] = dur[v] = len[v] = 0
    touched.push(v)
    q.push(v, 0)
    while (q.length) {
      const k = q.peekValue()!
      const u = q.pop()!
      if (k > dist[u]) continue
      let stalled = false
      for (let i = sOff[u]; i < sOff[u + 1]; i++) {
        if (dist[sTo[i]] + sW[i] < k) {
          stalled = true
          break
        }
      }
      if (stalled) continue
      if (this.size === this.node.length) this.grow()
      const n = this.size++
      this.node[n] = u
      this.w[n] = k
      this.t[n] = dur[u]
      this.m[n] = len[u]
      for (let i = off[u]; i < off[u + 1]; i++) {
        const x = to[i], w = k + W[i], dx = dist[x]
        if (w > dx) continue
        const m = len[u] + D[i]
        if (w === dx && m >= len[x]) continue
        if (dx === Infinity) touched.push(x)
        if (w < dx) q.push(x, w)
        dist[x] = w
        dur[x] = dur[u] + T[i]
        len[x] = m
      }
    }
  }

  private grow(): void {
    const more = <A extends Uint32Array | Float64Array>(a: A, b: A): A => (b.set(a), b)
    const c = 2 * this.node.length
    this.node = more(this.node, new Uint32Array(c))
    this.w = more(this.w, new Uint32Array(c))
    this.t = more(this.t, new Uint32Array(c))
    this.m = more(this.m, new Float64Array(c))
  }
}
