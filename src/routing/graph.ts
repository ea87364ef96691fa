import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import {countryCodeAt} from '../geocoding/country.js'
import type {Arcs} from './ch.js'
import {AVOID_BITS, CLASSES, MODES, TRUCK, deciseconds, speedKmh} from './profile.js'
import {type Restriction, TurnAutomaton} from './restrictions.js'

/**
 * The road network as flat arrays, shared by every mode (blob `route-edges`). Edge e is row
 * `edges.id = e + 1`; node i is `graph_nodes.id = i + 1`. `access` holds two bits per mode (bit
 * 2m: source→target, bit 2m+1: target→source) in MODES order.
 */
export interface Network {
  nodes: Int32Array
  src: Uint32Array
  dst: Uint32Array
  geomOff: Uint32Array
  geom: Int32Array
  length: Float32Array
  cls: Uint8Array
  flags: Uint8Array
  access: Uint8Array
  /** per direction (2e, 2e+1) and mode: deciseconds, 0 when closed; [mode][2e+d] */
  time: Uint32Array[]
  /** what routes minimise, like `time` but with penalties (destination-only roads for car and truck) */
  weight: Uint32Array[]
  bush: ArrayBuffer
  /** per edge: name, ref and raw highway as indexes into the string table (0: none), maxspeed km/h (0: none) */
  edgeName: Uint32Array
  edgeRef: Uint32Array
  edgeHighway: Uint32Array
  edgeMaxspeed: Uint16Array
  /** the string table: string i is the UTF-8 of strBytes[strOff[i] .. strOff[i + 1]); string 0 is empty */
  strOff: Uint32Array
  strBytes: Uint8Array
}

/** Distinct strings numbered from 1 in order of first appearance, encoded for the string table. */
class StringTable {
  private readonly ids = new Map<string, number>()
  private readonly parts: Uint8Array[] = []
  private readonly encoder = new TextEncoder()

  id(s: string | null): number {
    if (s === null || s === '') return 0
    let i = this.ids.get(s)
    if (i === undefined) {
      this.ids.set(s, (i = this.ids.size + 1))
      this.parts.push(this.encoder.encode(s))
    }
    return i
  }

  finish(): {strOff: Uint32Array; strBytes: Uint8Array} {
    const strOff = new Uint32Array(this.parts.length + 2)
    this.parts.forEach((p, i) => (strOff[i + 2] = strOff[i + 1] + p.length))
    const strBytes = new Uint8Array(strOff[this.parts.length + 1])
    this.parts.forEach((p, i) => strBytes.set(p, strOff[i + 1]))
    return {strOff, strBytes}
  }
}

type Row = [number, number, number, number, string, number | null, number, number, number, number, number, number, Buffer,
  string | null, number | null, number | null, number | null, number | null, number | null, number | null, string | null, string | null, number | null]

/** The network of map.db; `borders: false` leaves the border-crossing flags to a later `markBorders`. */
export function readNetwork(db: Database.Database, opts: {borders?: boolean} = {}): Network {
  const n = db.prepare('SELECT count(*) FROM graph_nodes').pluck().get() as number
  const m = db.prepare('SELECT count(*) FROM edges').pluck().get() as number
  const nodes = new Int32Array(n * 2)
  for (const [id, lon, lat] of db.prepare('SELECT id, lon, lat FROM graph_nodes').raw().iterate() as Iterable<[number, number, number]>) {
    nodes[(id - 1) * 2] = Math.round(lon * 1e7)
    nodes[(id - 1) * 2 + 1] = Math.round(lat * 1e7)
  }
  const src = new Uint32Array(m), dst = new Uint32Array(m), length = new Float32Array(m)
  const cls = new Uint8Array(m), flags = new Uint8Array(m), access = new Uint8Array(m)
  const time = MODES.map(() => new Uint32Array(2 * m))
  const weight = MODES.map(() => new Uint32Array(2 * m))
  const geomOff = new Uint32Array(m + 1)
  const parts: Int32Array[] = []
  const bush = new Flatbush(Math.max(1, m))
  const strings = new StringTable()
  const edgeName = new Uint32Array(m), edgeRef = new Uint32Array(m), edgeHighway = new Uint32Array(m), edgeMaxspeed = new Uint16Array(m)
  const rows = db.prepare(`SELECT e.id, source, target, length_m, class, maxspeed, car, truck, bike, foot, toll, ferry, geometry,
      a.highway, a.maxspeed_forward, a.maxspeed_backward, a.maxheight, a.maxweight, a.maxwidth, a.maxlength, e.name, e.ref, a.destination
    FROM edges e LEFT JOIN edge_attrs a ON a.id = e.id ORDER BY e.id`).raw().iterate() as Iterable<Row>
  for (const r of rows) {
    const e = r[0] - 1
    src[e] = r[1] - 1
    dst[e] = r[2] - 1
    length[e] = r[3]
    const c = CLASSES.indexOf(r[4] as (typeof CLASSES)[number])
    cls[e] = c < 0 ? CLASSES.indexOf('minor') : c
    const highway = r[13]
    edgeName[e] = strings.id(r[20])
    edgeRef[e] = strings.id(r[21])
    edgeHighway[e] = strings.id(highway)
    edgeMaxspeed[e] = r[5] !== null && r[5] > 0 ? Math.min(65535, Math.round(r[5])) : 0
    flags[e] = (r[10] ? AVOID_BITS.tolls : 0) | (r[11] ? AVOID_BITS.ferries : 0) | (r[4] === 'motorway' || r[4] === 'trunk' ? AVOID_BITS.highways : 0)
    const truckFits = !((r[16] !== null && r[16] < TRUCK.height) || (r[17] !== null && r[17] < TRUCK.weight) ||
      (r[18] !== null && r[18] < TRUCK.width) || (r[19] !== null && r[19] < TRUCK.length))
    const dirs = [r[6], truckFits ? r[7] : 0, r[8], r[9]]
    let bits = 0
    MODES.forEach((mode, k) => {
      bits |= (dirs[k] & 3) << (2 * k)
      for (let d = 0; d < 2; d++) {
        if (!(dirs[k] & (1 << d))) continue
        const kmh = speedKmh(mode, {cls: r[4], highway, maxspeed: r[5], dirMaxspeed: d === 0 ? r[14] : r[15]})
        const t = deciseconds(r[3], kmh)
        time[k][2 * e + d] = t
        weight[k][2 * e + d] = r[22] && (mode === 'car' || mode === 'truck') ? destinationWeight(t) : t
      }
    })
    access[e] = bits
    const g = new Int32Array(r[12].buffer, r[12].byteOffset, r[12].byteLength / 4)
    parts.push(g)
    geomOff[e + 1] = geomOff[e] + g.length
    let x0 = Infinity, y0 = Infinity, x1 = -Infinity, y1 = -Infinity
    for (let i = 0; i < g.length; i += 2) {
      const x = g[i] / 1e7, y = g[i + 1] / 1e7
      if (x < x0) x0 = x
      if (y < y0) y0 = y
      if (x > x1) x1 = x
      if (y > y1) y1 = y
    }
    bush.add(x0, y0, x1, y1)
  }
  if (m === 0) bush.add(0, 0, 0, 0)
  bush.finish()
  const geom = new Int32Array(geomOff[m])
  parts.forEach((g, e) => geom.set(g, geomOff[e]))
  const net = {nodes, src, dst, geomOff, geom, length, cls, flags, access, time, weight, bush: bush.data as ArrayBuffer, edgeName, edgeRef, edgeHighway, edgeMaxspeed, ...strings.finish()}
  if (opts.borders !== false) markBorders(net)
  return net
}

/**
 * Flags the edges whose ends lie in different countries (by country-coder's shapes, ~6 µs a node;
 * an end at sea is in none). The routing stage runs it while the workers contract.
 */
export function markBorders(net: Network): void {
  const codes = new Map<string, number>()
  const country = new Uint16Array(net.nodes.length / 2)
  for (let i = 0; i < country.length; i++) {
    const code = countryCodeAt(net.nodes[2 * i] / 1e7, net.nodes[2 * i + 1] / 1e7)
    if (!code) continue
    let c = codes.get(code)
    if (c === undefined) codes.set(code, (c = codes.size + 1))
    country[i] = c
  }
  for (let e = 0; e < net.src.length; e++) {
    const a = country[net.src[e]], b = country[net.dst[e]]
    if (a && b && a !== b) net.flags[e] |= AVOID_BITS.borderCrossings
  }
}

/**
 * Destination-only roads (access, vehicle, motor_vehicle or motorcar = destination or delivery)
 * weigh five times their time plus two minutes: a route reaches addresses on them but does not cut
 * through unless every other way is far longer. Durations stay the real ones.
 */
const destinationWeight = (t: number) => 5 * t + 1200

/**
 * The directed arcs of one mode, with turn restrictions built in: the graph is the product of the
 * nodes and the states of the restrictions' automaton (restrictions.ts), so a node gets a copy for
 * each restricted prefix that ends there, and the copy leaves only by the arcs that prefix allows.
 * Exact for via-node and via-way restrictions; copies have `orig` = the node they copy. Arcs of
 * state 0 (the plain nodes) come first, in edge order.
 */
export function modeArcs(net: Network, k: number, restrictions: Restriction[]): Arcs & {orig: Uint32Array} {
  const w = net.weight[k], time = net.time[k]
  const m = net.src.length, base = net.nodes.length / 2
  const auto = new TurnAutomaton(net, restrictions, (a) => w[a] > 0)
  const nodeOf = (v: number, s: number) => (s ? base + s - 1 : v)
  const tail: number[] = [], head: number[] = [], ws: number[] = [], ts: number[] = [], ds: number[] = [], xs: number[] = []
  const push = (from: number, s: number, a: number) => {
    const e = a >> 1
    tail.push(from)
    head.push(nodeOf(a & 1 ? net.src[e] : net.dst[e], auto.next(s, a)))
    ws.push(w[a])
    ts.push(time[a])
    ds.push(net.length[e])
    xs.push(a)
  }
  for (let a = 0; a < 2 * m; a++) if (w[a]) push(a & 1 ? net.dst[a >> 1] : net.src[a >> 1], 0, a)
  if (auto.states > 1) {
    // the open arcs leaving each node (CSR), for the copies
    const off = new Uint32Array(base + 1)
    for (let a = 0; a < 2 * m; a++) if (w[a]) off[(a & 1 ? net.dst[a >> 1] : net.src[a >> 1]) + 1]++
    for (let v = 0; v < base; v++) off[v + 1] += off[v]
    const at = off.slice(0, base), out = new Uint32Array(off[base])
    for (let a = 0; a < 2 * m; a++) if (w[a]) out[at[a & 1 ? net.dst[a >> 1] : net.src[a >> 1]]++] = a
    for (let s = 1; s < auto.states; s++) {
      const v = auto.node[s]
      // Inside via ways no U-turn back along the last arc (but at a dead end): turning round in
      // the median of a dual carriageway would get round its no_u_turn.
      const back = auto.depth[s] >= 2 && off[v + 1] - off[v] > 1 ? auto.last[s] ^ 1 : -1
      for (let i = off[v]; i < off[v + 1]; i++) if (out[i] !== back && auto.allows(s, out[i])) push(nodeOf(v, s), s, out[i])
    }
  }
  const orig = new Uint32Array(base + auto.states - 1)
  for (let i = 0; i < base; i++) orig[i] = i
  for (let s = 1; s < auto.states; s++) orig[base + s - 1] = auto.node[s]
  return {n: orig.length, orig, tail: Uint32Array.from(tail), head: Uint32Array.from(head), w: Uint32Array.from(ws), t: Uint32Array.from(ts), d: Float32Array.from(ds), x: Int32Array.from(xs)}
}
