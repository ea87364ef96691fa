import type Database from 'better-sqlite3'
import Flatbush from 'flatbush'
import {countryCodeAt} from '../geocoding/country.js'
import type {Arcs} from './ch.js'
import {AVOID_BITS, CLASSES, type Mode, MODES, TRUCK, deciseconds, speedKmh} from './profile.js'

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

export interface Restriction {
  via: number
  from: number
  to: number
  only: boolean
}

/**
 * Via-node turn restrictions that apply to `mode`. `restriction:conditional` rows are left out
 * (they are stored as if they always applied; durations are free-flow anyway).
 */
export function readRestrictions(db: Database.Database, mode: Mode): Restriction[] {
  if (mode === 'foot') return []
  const own: Record<Mode, string[]> = {car: ['motorcar', 'motor_vehicle', 'vehicle'], truck: ['hgv', 'motor_vehicle', 'vehicle'], bike: ['bicycle', 'vehicle'], foot: []}
  const exceptKey: Record<Mode, string[]> = {car: ['motorcar', 'motor_vehicle'], truck: ['hgv', 'motor_vehicle'], bike: ['bicycle'], foot: []}
  const out: Restriction[] = []
  const rows = db.prepare(`SELECT restriction, modes, except_modes, via_node, from_edge, to_edge FROM turn_restrictions
    WHERE via_node IS NOT NULL AND from_edge IS NOT NULL AND to_edge IS NOT NULL`).raw().all() as [string, string | null, string | null, number, number, number][]
  for (const [kind, modes, except, via, from, to] of rows) {
    if (modes === 'conditional' || (modes && !own[mode].includes(modes))) continue
    if (except && except.split(/[;,]/).some((m) => exceptKey[mode].includes(m.trim()))) continue
    if (!kind.startsWith('no_') && !kind.startsWith('only_')) continue
    out.push({via: via - 1, from: from - 1, to: to - 1, only: kind.startsWith('only_')})
  }
  return out
}

/**
 * The directed arcs of one mode, with via-node turn restrictions built in by node splitting: for
 * each (via node, from edge) that restricts, a copy of the via node receives that edge's arcs and
 * leaves only by the permitted edges. Exact for via-node restrictions; copies have `orig` = via.
 */
export function modeArcs(net: Network, k: number, restrictions: Restriction[]): Arcs & {orig: Uint32Array} {
  const w = net.weight[k], time = net.time[k]
  const m = net.src.length
  let n = net.nodes.length / 2
  const tail: number[] = [], head: number[] = [], ws: number[] = [], ts: number[] = [], ds: number[] = [], xs: number[] = []
  const outOf = new Map<number, number[]>()
  for (let e = 0; e < m; e++) {
    for (let d = 0; d < 2; d++) {
      if (!w[2 * e + d]) continue
      tail.push(d ? net.dst[e] : net.src[e])
      head.push(d ? net.src[e] : net.dst[e])
      ws.push(w[2 * e + d])
      ts.push(time[2 * e + d])
      ds.push(net.length[e])
      xs.push(2 * e + d)
    }
  }
  const groups = new Map<string, {via: number; from: number; no: Set<number>; only: Set<number>}>()
  for (const r of restrictions) {
    const key = `${r.via}:${r.from}`
    let g = groups.get(key)
    if (!g) groups.set(key, (g = {via: r.via, from: r.from, no: new Set(), only: new Set()}))
    ;(r.only ? g.only : g.no).add(r.to)
  }
  if (groups.size) {
    for (let a = 0; a < tail.length; a++) {
      const list = outOf.get(tail[a])
      if (list) list.push(a)
      else outOf.set(tail[a], [a])
    }
  }
  const origExtra: number[] = []
  const copyOf = new Map<string, number>()
  const base = tail.length
  for (const [key, g] of groups) {
    const copy = n++
    origExtra.push(g.via)
    copyOf.set(key, copy)
    for (const a of outOf.get(g.via) ?? []) {
      if (a >= base) continue
      const e = xs[a] >> 1
      if (g.only.size ? !g.only.has(e) : g.no.has(e)) continue
      tail.push(copy)
      head.push(head[a])
      ws.push(ws[a])
      ts.push(ts[a])
      ds.push(ds[a])
      xs.push(xs[a])
    }
  }
  if (groups.size) {
    for (let a = 0; a < tail.length; a++) {
      const copy = copyOf.get(`${head[a]}:${xs[a] >> 1}`)
      if (copy !== undefined) head[a] = copy
    }
  }
  const orig = new Uint32Array(n)
  for (let i = 0; i < net.nodes.length / 2; i++) orig[i] = i
  origExtra.forEach((v, i) => (orig[net.nodes.length / 2 + i] = v))
  return {n, orig, tail: Uint32Array.from(tail), head: Uint32Array.from(head), w: Uint32Array.from(ws), t: Uint32Array.from(ts), d: Float32Array.from(ds), x: Int32Array.from(xs)}
}
