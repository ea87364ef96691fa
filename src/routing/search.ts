import FlatQueue from 'flatqueue'

/** Where a search starts or ends: a node and the cost (deciseconds) and metres already spent. */
export interface Seed {node: number; w: number; t: number; m: number; arc: number}

const INF = Infinity

/** One search direction's scratch state, reset by the list of nodes it touched. */
export class Search {
  /** weight (what the search minimises) */
  readonly w: Float64Array
  /** duration, deciseconds */
  readonly t: Float64Array
  readonly m: Float64Array
  /** index of the arc that reached the node (in the search's arc arrays), -1 for a seed */
  readonly via: Int32Array
  readonly prev: Int32Array
  readonly seedArc: Int32Array
  readonly touched: number[] = []
  readonly queue = new FlatQueue<number>()

  constructor(n: number) {
    this.w = new Float64Array(n).fill(INF)
    this.t = new Float64Array(n)
    this.m = new Float64Array(n)
    this.via = new Int32Array(n)
    this.prev = new Int32Array(n)
    this.seedArc = new Int32Array(n)
  }

  reset(seeds: Seed[]): void {
    for (const v of this.touched) this.w[v] = INF
    this.touched.length = 0
    this.queue.clear()
    for (const s of seeds) {
      if (s.w >= this.w[s.node]) continue
      if (this.w[s.node] === INF) this.touched.push(s.node)
      this.w[s.node] = s.w
      this.t[s.node] = s.t
      this.m[s.node] = s.m
      this.via[s.node] = -1
      this.seedArc[s.node] = s.arc
      this.queue.push(s.node, s.w)
    }
  }

  relax(from: number, to: number, w: number, t: number, m: number, arc: number): void {
    if (w >= this.w[to]) return
    if (this.w[to] === INF) this.touched.push(to)
    this.w[to] = w
    this.t[to] = t
    this.m[to] = m
    this.via[to] = arc
    this.prev[to] = from
    this.queue.push(to, w)
  }
}
