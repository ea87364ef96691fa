import type Database from 'better-sqlite3'
import type {Mode} from './profile.js'

/**
 * A turn restriction of one mode: from an edge, over a via node or along via edges, onto an edge.
 * Edges are 0-based (map.db id - 1); via edges are base arc ids (2e + d) in travel order.
 */
export interface Restriction {
  from: number
  via: number | number[]
  to: number
  only: boolean
}

/**
 * The transport modes of the OSM access hierarchy (wiki: Key:access) each profile is: a
 * `restriction:<mode>` applies to a profile whose list holds the mode, and `except=<modes>` exempts
 * it. Exemptions for vehicles none of the profiles is (psv, bus, taxi, emergency, moped, goods: the
 * truck is the 16.5 m lorry, not a delivery van, ...) leave the restriction in force for all of them.
 * Walkers obey no turn restrictions.
 */
const OWN: Record<Mode, string[]> = {car: ['motorcar', 'motor_vehicle', 'vehicle'], truck: ['hgv', 'motor_vehicle', 'vehicle'], bike: ['bicycle', 'vehicle'], foot: []}
const EXCEPT = OWN

/**
 * The turn restrictions (via node or via ways) that apply to `mode`. `restriction:conditional`
 * rows are left out (they are stored as if they always applied; durations are free-flow anyway).
 */
export function readRestrictions(db: Database.Database, mode: Mode): Restriction[] {
  if (mode === 'foot') return []
  const out: Restriction[] = []
  const rows = db.prepare(`SELECT restriction, modes, except_modes, via_node, via_edges, from_edge, to_edge FROM turn_restrictions
    WHERE from_edge IS NOT NULL AND to_edge IS NOT NULL AND (via_node IS NOT NULL OR via_edges IS NOT NULL)`).raw().all() as [string, string | null, string | null, number | null, string | null, number, number][]
  for (const [kind, modes, except, viaNode, viaEdges, from, to] of rows) {
    if (modes === 'conditional' || (modes && !OWN[mode].includes(modes))) continue
    if (except && except.split(/[;,]/).some((m) => EXCEPT[mode].includes(m.trim()))) continue
    if (!kind.startsWith('no_') && !kind.startsWith('only_')) continue
    const via = viaNode !== null ? viaNode - 1 : viaEdges!.split(',').map((s) => (Number(s) > 0 ? 2 * (Number(s) - 1) : 2 * (-Number(s) - 1) + 1))
    out.push({from: from - 1, via, to: to - 1, only: kind.startsWith('only_')})
  }
  return out
}

interface Ends {src: Uint32Array; dst: Uint32Array}

/** The base arc sequences a restriction names: the from arc arriving at the via, the via arcs, the to arc leaving it. */
export function arcSequences(net: Ends, r: Restriction): number[][] {
  const head = (a: number) => (a & 1 ? net.src[a >> 1] : net.dst[a >> 1])
  const tail = (a: number) => (a & 1 ? net.dst[a >> 1] : net.src[a >> 1])
  const via = typeof r.via === 'number' ? [] : r.via
  const first = typeof r.via === 'number' ? r.via : tail(via[0])
  const last = typeof r.via === 'number' ? r.via : head(via[via.length - 1])
  const into = [2 * r.from, 2 * r.from + 1].filter((a) => head(a) === first)
  const onto = [2 * r.to, 2 * r.to + 1].filter((a) => tail(a) === last)
  return into.flatMap((a) => onto.map((b) => [a, ...via, b]))
}

/**
 * What a route has just travelled, as far as turn restrictions care: an automaton over base arcs
 * (Aho–Corasick over the restricted sequences, as OSRM's restriction graph is). State 0 knows
 * nothing; state s ≥ 1 is the longest proper prefix of a restricted sequence the route ends with.
 * The road graph of a mode is the product of nodes and states: a node copy per state s ≥ 1 (at the
 * head of its last arc), arcs only where `allows`, so every search obeys the restrictions exactly.
 */
export class TurnAutomaton {
  /** per state: the node its last arc arrives at (unused for state 0) */
  readonly node: number[] = [0]
  /** per state: its last arc (-1 for state 0) */
  readonly last: number[] = [-1]
  /** per state: how many arcs of a restricted sequence it has followed (2 or more: inside via ways) */
  readonly depth: number[] = [0]
  private readonly fail: number[] = [0]
  private readonly no: (Set<number> | null)[] = [null]
  private readonly only: (Set<number> | null)[] = [null]
  private readonly kids: number[][] = [[]]
  private readonly child = new Map<number, number>()
  private readonly arcs: number

  /** `open(a)`: whether the mode may travel base arc a; sequences over closed arcs never happen and are left out. */
  constructor(net: Ends, restrictions: Restriction[], open: (arc: number) => boolean) {
    this.arcs = 2 * net.src.length
    for (const r of restrictions) {
      for (const seq of arcSequences(net, r)) {
        const last = seq.length - 1
        if (!seq.slice(0, last).every(open) || (!r.only && !open(seq[last]))) continue
        let s = 0
        for (let i = 0; i < last; i++) s = this.child.get(this.key(s, seq[i])) ?? this.add(s, seq[i], net)
        const set = r.only ? (this.only[s] ??= new Set()) : (this.no[s] ??= new Set())
        set.add(seq[last])
      }
    }
    this.link()
  }

  get states(): number {
    return this.node.length
  }

  /** The state after travelling arc `a` in state `s`. */
  next(s: number, a: number): number {
    for (;;) {
      const c = this.child.get(this.key(s, a))
      if (c !== undefined) return c
      if (s === 0) return 0
      s = this.fail[s]
    }
  }

  /** Whether arc `a` may follow in state `s`. */
  allows(s: number, a: number): boolean {
    const only = this.only[s]
    return !this.no[s]?.has(a) && (!only || only.has(a))
  }

  private key(s: number, a: number): number {
    return s * this.arcs + a
  }

  private add(s: number, a: number, net: Ends): number {
    const c = this.node.length
    this.node.push(a & 1 ? net.src[a >> 1] : net.dst[a >> 1])
    this.last.push(a)
    this.depth.push(this.depth[s] + 1)
    this.fail.push(0)
    this.no.push(null)
    this.only.push(null)
    this.kids.push([])
    this.kids[s].push(c)
    this.child.set(this.key(s, a), c)
    return c
  }

  /** Suffix links breadth first; a state inherits what its longest suffix state forbids. */
  private link(): void {
    const queue = [...this.kids[0]]
    for (let q = 0; q < queue.length; q++) {
      const s = queue[q]
      for (const c of this.kids[s]) {
        this.fail[c] = this.next(this.fail[s], this.last[c])
        const f = this.fail[c]
        if (this.no[f]) for (const x of this.no[f]!) (this.no[c] ??= new Set()).add(x)
        if (this.only[f]) for (const x of this.only[f]!) (this.only[c] ??= new Set()).add(x)
        queue.push(c)
      }
    }
  }
}
