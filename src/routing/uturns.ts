import FlatQueue from 'flatqueue'
import type {Entry, ModeRouter, Path} from './engine.js'

/**
 * Whether a path turns round (an arc, then the same edge back) at a node where another way leads
 * on: at a junction, or where two ways join. A point within 1 m of a node travels a zero-length
 * piece of its edge, which is no turn.
 */
export function turnsRound(router: ModeRouter, p: Path): boolean {
  const {arcs} = p, g = router.g, net = router.net
  const first = router.endOf(p.from) >= 0 ? 1 : 0, last = arcs.length - (router.endOf(p.to) >= 0 ? 2 : 1)
  for (let i = first; i < last; i++) {
    const a = arcs[i]
    if (arcs[i + 1] !== (a ^ 1)) continue
    const v = a & 1 ? net.src[a >> 1] : net.dst[a >> 1]
    if (g.gOff[v + 1] - g.gOff[v] > 1) return true
  }
  return false
}

/** Scratch of the search below: a label per arc of the mode's graph. */
export class ArcLabels {
  readonly w: Float64Array
  readonly t: Float64Array
  readonly m: Float64Array
  /** the arc before (-1 - k: the k-th seed) */
  readonly prev: Int32Array
  readonly touched: number[] = []
  readonly queue = new FlatQueue<number>()

  constructor(n: number) {
    this.w = new Float64Array(n).fill(Infinity)
    this.t = new Float64Array(n)
    this.m = new Float64Array(n)
    this.prev = new Int32Array(n)
  }
}

/** Where the search below starts: a node, reached by base arc `came` (-1: none to keep off), with costs spent. */
interface Start {node: number; came: number; arc: number; w: number; t: number; m: number}
/** Where it may end: at `node`, then along base arc `arc` (the costs of its part travelled); `free`: any arrival. */
interface Goal {arc: number; w: number; t: number; m: number; free: boolean}

/**
 * The fastest way between `starts` and `goals` that turns round only where nothing else leads on
 * (a dead end, or a node a turn restriction leaves no other way out of): plain Dijkstra over the
 * mode's graph with a label per arc (edge-based), so "not back along the arc just travelled" is
 * exact. Arcs on edges whose flags meet `avoid` are skipped. Returns the base arcs from the start's
 * `arc` to the goal's, the node it ends at and the costs.
 */
function search(router: ModeRouter, L: ArcLabels, starts: Start[], goals: Map<number, Goal>, avoid: number) {
  const g = router.g, net = router.net
  const ok = (arc: number) => !(net.flags[arc >> 1] & avoid)
  for (const j of L.touched) L.w[j] = Infinity
  L.touched.length = 0
  L.queue.clear()
  let best = Infinity, bestT = 0, bestM = 0, end = 0, endNode = -1
  const leave = (u: number, came: number, w: number, t: number, m: number, via: number) => {
    const others = g.gOff[u + 1] - g.gOff[u] > 1
    const back = others && came >= 0 ? came ^ 1 : -1
    const s = goals.get(u)
    if (s && (s.free || s.arc !== back) && w + s.w < best) {
      best = w + s.w
      bestT = t + s.t
      bestM = m + s.m
      end = via
      endNode = u
    }
    for (let j = g.gOff[u]; j < g.gOff[u + 1]; j++) {
      const x = g.gX[j], nw = w + g.gW[j]
      if (x === back || !ok(x) || nw >= L.w[j]) continue
      if (L.w[j] === Infinity) L.touched.push(j)
      L.w[j] = nw
      L.t[j] = t + g.arcT[x]
      L.m[j] = m + net.length[x >> 1]
      L.prev[j] = via
      L.queue.push(j, nw)
    }
  }
  starts.forEach((s, k) => leave(s.node, s.came, s.w, s.t, s.m, -1 - k))
  while (L.queue.length) {
    const k = L.queue.peekValue()!
    const j = L.queue.pop()!
    if (k > L.w[j]) continue
    if (k >= best) break
    leave(g.gTo[j], g.gX[j], k, L.t[j], L.m[j], j)
  }
  if (endNode < 0) return null
  const arcs = [goals.get(endNode)!.arc]
  let j = end
  for (; j >= 0; j = L.prev[j]) arcs.push(g.gX[j])
  arcs.push(starts[-1 - j].arc)
  return {arcs: arcs.reverse(), node: endNode, w: bestT, meters: bestM}
}

/**
 * A path like `p` that turns round only where nothing else leads on. Each turn is mended where it
 * is: the fastest way without turning round from two arcs before it to two arcs after it (from the
 * start, or to the end, when they are nearer), so the search stays local (a block round, a
 * restriction got round another way); a turn the mend cannot avoid stays. `entry` and `avoid` as
 * for the path.
 */
export function withoutUturns(router: ModeRouter, L: ArcLabels, p: Path, opts: {entry?: Entry; avoid?: number} = {}): Path {
  for (let tries = 0; tries < 4 && turnsRound(router, p); tries++) {
    const next = mend(router, L, p, opts)
    if (!next) break
    p = next
  }
  return p
}

function mend(router: ModeRouter, L: ArcLabels, p: Path, opts: {entry?: Entry; avoid?: number}): Path | null {
  const g = router.g, net = router.net, arcs = p.arcs, n = arcs.length
  // the graph nodes (turn-restriction copies included) the path reaches after each of its arcs but the last
  const seeds = router.sources(p.from, opts.entry)
  const nodes = [seeds.find((s) => s.arc === arcs[0])?.node ?? -1]
  for (let i = 1; i < n - 1 && nodes[i - 1] >= 0; i++) {
    const u = nodes[i - 1]
    let next = -1
    for (let j = g.gOff[u]; j < g.gOff[u + 1]; j++) if (g.gX[j] === arcs[i]) next = g.gTo[j]
    nodes.push(next)
  }
  if (nodes[nodes.length - 1] < 0) return null
  const fromAtNode = router.endOf(p.from) >= 0, toAtNode = router.endOf(p.to) >= 0
  let at = -1
  for (let i = fromAtNode ? 1 : 0; i < n - (toAtNode ? 2 : 1) && at < 0; i++) {
    const v = arcs[i] & 1 ? net.src[arcs[i] >> 1] : net.dst[arcs[i] >> 1]
    if (arcs[i + 1] === (arcs[i] ^ 1) && g.gOff[v + 1] - g.gOff[v] > 1) at = i
  }
  if (at < 0) return null
  const a = at - 2, b = at + 3 // start at the node after arcs[a], end at the node after arcs[b]
  const starts: Start[] = a < 0
    ? seeds.map((s) => ({node: s.node, came: s.m ? s.arc : -1, arc: s.arc, w: s.w, t: s.t, m: s.m}))
    : [{node: nodes[a], came: a === 0 && fromAtNode ? -1 : arcs[a], arc: arcs[a], w: 0, t: 0, m: 0}]
  const goals = new Map<number, Goal>()
  const targets = router.targets(p.to)
  if (b >= n - 1) {
    for (const s of targets) if (!(goals.get(s.node)?.w! <= s.w)) goals.set(s.node, {arc: s.arc, w: s.w, t: s.t, m: s.m, free: s.m === 0})
  } else goals.set(nodes[b], {arc: arcs[b + 1], w: 0, t: 0, m: 0, free: b + 1 === n - 1 && toAtNode})
  const found = search(router, L, starts, goals, opts.avoid ?? 0)
  if (!found) return null
  // what the kept head and tail cost: the path's partial end arcs as its seeds count them, whole arcs between
  let t = found.w, m = found.meters
  const whole = (i: number) => ((t += g.arcT[arcs[i]]), (m += net.length[arcs[i] >> 1]))
  if (a >= 0) {
    const s = seeds.find((x) => x.arc === arcs[0])!
    ;(t += s.t), (m += s.m)
    for (let i = 1; i <= a; i++) whole(i)
  }
  if (b < n - 1) {
    const s = targets.find((x) => x.arc === arcs[n - 1])!
    ;(t += s.t), (m += s.m)
    for (let i = b + 1; i < n - 1; i++) whole(i)
  }
  const out = [...(a < 0 ? [] : arcs.slice(0, a)), ...found.arcs, ...(b >= n - 1 ? [] : arcs.slice(b + 2))]
  const end = b >= n - 1 ? router.endAt(found.node, out[out.length - 1], p.to) : p.end
  return {w: t, meters: m, arcs: out, from: p.from, to: p.to, end}
}
