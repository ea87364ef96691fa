import FlatQueue from 'flatqueue'

/** A directed graph as arc arrays: arc i goes tail[i] → head[i] with weight w[i] (deciseconds), length d[i] (metres), id x[i]. */
export interface Arcs {
  n: number
  tail: Uint32Array
  head: Uint32Array
  w: Uint32Array
  d: Float32Array
  x: Int32Array
}

/**
 * A contraction hierarchy. `up*`: arcs from each node to higher-ranked nodes (the forward search
 * graph); `dn*`: arcs into each node from higher-ranked nodes, stored at the lower one (the backward
 * search graph). An arc's `x` is the base arc id (≥ 0) or, for a shortcut, -(middle node + 1).
 */
export interface Hierarchy {
  rank: Uint32Array
  upOff: Uint32Array; upTo: Uint32Array; upW: Uint32Array; upD: Float32Array; upX: Int32Array
  dnOff: Uint32Array; dnFrom: Uint32Array; dnW: Uint32Array; dnD: Float32Array; dnX: Int32Array
  shortcuts: number
}

interface Dyn {
  from: number[]; to: number[]; w: number[]; d: number[]; x: number[]
  out: number[][]; inc: number[][]
}

const SIM_SETTLE = 40
const REAL_SETTLE = 400

/**
 * Builds the hierarchy: nodes contracted in order of edge difference plus contracted neighbours
 * (lazy updates), shortcuts added unless a witness search (settle-limited, so it may add a few
 * unnecessary shortcuts but never misses a needed one) finds a path at most as short.
 */
export async function contract(g: Arcs, progress?: (done: number, total: number) => Promise<void>): Promise<Hierarchy> {
  const n = g.n
  const dyn: Dyn = {from: [], to: [], w: [], d: [], x: [], out: [], inc: []}
  for (let v = 0; v < n; v++) {
    dyn.out.push([])
    dyn.inc.push([])
  }
  for (let i = 0; i < g.tail.length; i++) {
    if (g.tail[i] === g.head[i]) continue
    addArc(dyn, g.tail[i], g.head[i], g.w[i], g.d[i], g.x[i])
  }
  const done = new Uint8Array(n)
  const deleted = new Uint32Array(n)
  const dist = new Float64Array(n).fill(Infinity)
  const touched: number[] = []
  const queue = new FlatQueue<number>()

  const witness = (s: number, skip: number, limit: number, settle: number) => {
    for (const t of touched) dist[t] = Infinity
    touched.length = 0
    queue.clear()
    dist[s] = 0
    touched.push(s)
    queue.push(s, 0)
    let settled = 0
    while (queue.length) {
      const k = queue.peekValue()!
      const u = queue.pop()!
      if (k > dist[u]) continue
      if (k > limit || ++settled > settle) break
      for (const a of dyn.out[u]) {
        const t = dyn.to[a]
        if (t === skip || done[t]) continue
        const nd = k + dyn.w[a]
        if (nd < dist[t]) {
          if (dist[t] === Infinity) touched.push(t)
          dist[t] = nd
          queue.push(t, nd)
        }
      }
    }
  }

  // Returns the number of shortcuts contracting v needs; adds them when `apply`.
  const shortcutsOf = (v: number, apply: boolean): number => {
    let count = 0
    const outs = dyn.out[v], ins = dyn.inc[v]
    for (const ai of ins) {
      const u = dyn.from[ai]
      if (done[u]) continue
      let max = 0
      for (const ao of outs) if (!done[dyn.to[ao]] && dyn.to[ao] !== u) max = Math.max(max, dyn.w[ai] + dyn.w[ao])
      if (max === 0) continue
      witness(u, v, max, apply ? REAL_SETTLE : SIM_SETTLE)
      for (const ao of outs) {
        const t = dyn.to[ao]
        if (done[t] || t === u) continue
        const via = dyn.w[ai] + dyn.w[ao]
        if (dist[t] <= via) continue
        count++
        if (apply) {
          addArc(dyn, u, t, via, dyn.d[ai] + dyn.d[ao], -(v + 1))
          if (dist[t] === Infinity) touched.push(t)
          dist[t] = via // a second arc u→v does not add a second shortcut
        }
      }
    }
    return count
  }
  const degree = (v: number) => {
    let k = 0
    for (const a of dyn.out[v]) if (!done[dyn.to[a]]) k++
    for (const a of dyn.inc[v]) if (!done[dyn.from[a]]) k++
    return k
  }
  const priority = (v: number) => 2 * shortcutsOf(v, false) - degree(v) + deleted[v]

  const order = new FlatQueue<number>()
  for (let v = 0; v < n; v++) {
    order.push(v, priority(v))
    if ((v & 0x3fff) === 0 && progress) await progress(v, 3 * n)
  }
  const rank = new Uint32Array(n)
  const up: number[][] = Array.from({length: n}, () => [])
  const dn: number[][] = Array.from({length: n}, () => [])
  let next = 0
  while (order.length) {
    const v = order.pop()!
    if (done[v]) continue
    const p = priority(v)
    if (order.length && p > order.peekValue()!) {
      order.push(v, p)
      continue
    }
    shortcutsOf(v, true)
    rank[v] = next++
    for (const a of dyn.out[v]) {
      const t = dyn.to[a]
      if (done[t]) continue
      up[v].push(a)
      deleted[t]++
      dyn.inc[t] = dyn.inc[t].filter((b) => dyn.from[b] !== v)
    }
    for (const a of dyn.inc[v]) {
      const f = dyn.from[a]
      if (done[f]) continue
      dn[v].push(a)
      deleted[f]++
      dyn.out[f] = dyn.out[f].filter((b) => dyn.to[b] !== v)
    }
    done[v] = 1
    if ((next & 0x1fff) === 0 && progress) await progress(n + 2 * next, 3 * n)
  }

  const pack = (lists: number[][], end: number[]) => {
    const off = new Uint32Array(n + 1)
    for (let v = 0; v < n; v++) off[v + 1] = off[v] + lists[v].length
    const m = off[n]
    const node = new Uint32Array(m), w = new Uint32Array(m), d = new Float32Array(m), x = new Int32Array(m)
    for (let v = 0, k = 0; v < n; v++) {
      for (const a of lists[v]) {
        node[k] = end[a]
        w[k] = dyn.w[a]
        d[k] = dyn.d[a]
        x[k++] = dyn.x[a]
      }
    }
    return {off, node, w, d, x}
  }
  const u = pack(up, dyn.to), l = pack(dn, dyn.from)
  return {
    rank,
    upOff: u.off, upTo: u.node, upW: u.w, upD: u.d, upX: u.x,
    dnOff: l.off, dnFrom: l.node, dnW: l.w, dnD: l.d, dnX: l.x,
    shortcuts: dyn.x.filter((x) => x < 0).length,
  }
}

/** Adds arc u→t, or lowers the weight of an existing u→t arc. */
function addArc(dyn: Dyn, u: number, t: number, w: number, d: number, x: number): void {
  for (const a of dyn.out[u]) {
    if (dyn.to[a] !== t) continue
    if (w < dyn.w[a]) {
      dyn.w[a] = w
      dyn.d[a] = d
      dyn.x[a] = x
    }
    return
  }
  const a = dyn.to.length
  dyn.from.push(u)
  dyn.to.push(t)
  dyn.w.push(w)
  dyn.d.push(d)
  dyn.x.push(x)
  dyn.out[u].push(a)
  dyn.inc[t].push(a)
}
