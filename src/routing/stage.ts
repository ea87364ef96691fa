import type Database from 'better-sqlite3'
import type {MapStage, StageContext} from '../osm/stage.js'
import {type Arcs, type Hierarchy, contract} from './ch.js'
import {contractors} from './contractors.js'
import {type Network, markBorders, modeArcs, readNetwork} from './graph.js'
import {type Mode, MODES} from './profile.js'
import {readRestrictions} from './restrictions.js'

/**
 * Blob `route-edges` (the shared network) and one `route-<mode>` blob per mode; kind version 1. The
 * street-name sections of `route-edges` (edgeName … strBytes) were added later: readers fall back to
 * map.db for regions built without them.
 */
export const EDGES_BLOB = 'route-edges'
export const modeBlob = (mode: Mode) => `route-${mode}`
export const ROUTE_BLOB_VERSION = 1

/** One mode's graph: node copies from turn restrictions, the plain graph (CSR by tail), the hierarchy. */
export interface ModeGraph extends Hierarchy {
  /** base node of each node (differs for the copies turn restrictions add) */
  orig: Uint32Array
  gOff: Uint32Array; gTo: Uint32Array; gW: Uint32Array; gX: Int32Array
  /** per base arc id (2e + d): the node it arrives at from a plain node (no turn history), -1 when the mode may not travel it */
  arcTo: Int32Array
  /** per base arc id: weight (deciseconds and penalties), 0 when closed */
  arcW: Uint32Array
  /** per base arc id: deciseconds */
  arcT: Uint32Array
  /** per edge: 1 when it lies in a small island of the mode's network (snapping avoids those) */
  tiny: Uint8Array
  /** per base arc id: the nodes it leaves from (CSR) */
  srcOff: Uint32Array; srcs: Uint32Array
}

export async function buildModeGraph(net: Network, db: Database.Database, k: number, progress?: (done: number, total: number) => Promise<void>): Promise<ModeGraph> {
  const arcs = modeArcs(net, k, readRestrictions(db, MODES[k]))
  return modeGraph(net, {...arcs, k}, await contract(arcs, progress))
}

function modeGraph(net: Network, arcs: ModeArcs, h: Hierarchy): ModeGraph {
  return {...h, orig: arcs.orig, arcW: net.weight[arcs.k], arcT: net.time[arcs.k], tiny: islands(arcs, net.src.length), ...plain(arcs), ...arcEnds(arcs, net.src.length)}
}

type ModeArcs = Arcs & {orig: Uint32Array; k: number}

/** Edges whose (undirected) component has fewer than min(1000, half the largest) nodes. */
function islands(g: Arcs, edges: number): Uint8Array {
  const parent = new Uint32Array(g.n)
  for (let v = 0; v < g.n; v++) parent[v] = v
  const find = (v: number): number => {
    while (parent[v] !== v) v = parent[v] = parent[parent[v]]
    return v
  }
  for (let i = 0; i < g.tail.length; i++) {
    const a = find(g.tail[i]), b = find(g.head[i])
    if (a !== b) parent[a] = b
  }
  const size = new Uint32Array(g.n)
  let largest = 0
  for (let v = 0; v < g.n; v++) largest = Math.max(largest, ++size[find(v)])
  const small = Math.min(1000, largest / 2)
  const tiny = new Uint8Array(edges)
  for (let i = 0; i < g.tail.length; i++) if (size[find(g.tail[i])] < small) tiny[g.x[i] >> 1] = 1
  return tiny
}

function plain(g: Arcs) {
  const gOff = new Uint32Array(g.n + 1)
  for (let i = 0; i < g.tail.length; i++) gOff[g.tail[i] + 1]++
  for (let v = 0; v < g.n; v++) gOff[v + 1] += gOff[v]
  const at = gOff.slice(0, g.n)
  const gTo = new Uint32Array(g.tail.length), gW = new Uint32Array(g.tail.length), gX = new Int32Array(g.tail.length)
  for (let i = 0; i < g.tail.length; i++) {
    const k = at[g.tail[i]]++
    gTo[k] = g.head[i]
    gW[k] = g.w[i]
    gX[k] = g.x[i]
  }
  return {gOff, gTo, gW, gX}
}

function arcEnds(g: Arcs, edges: number) {
  const arcTo = new Int32Array(2 * edges).fill(-1)
  const srcOff = new Uint32Array(2 * edges + 1)
  for (let i = 0; i < g.tail.length; i++) {
    if (arcTo[g.x[i]] < 0) arcTo[g.x[i]] = g.head[i] // the plain node's arc comes first
    srcOff[g.x[i] + 1]++
  }
  for (let a = 0; a < 2 * edges; a++) srcOff[a + 1] += srcOff[a]
  const at = srcOff.slice(0, 2 * edges)
  const srcs = new Uint32Array(g.tail.length)
  for (let i = 0; i < g.tail.length; i++) srcs[at[g.x[i]]++] = g.tail[i]
  return {arcTo, srcOff, srcs}
}

export function networkSections(net: Network) {
  const {nodes, src, dst, geomOff, geom, length, cls, flags, access, bush, edgeName, edgeRef, edgeHighway, edgeMaxspeed, strOff, strBytes} = net
  return {nodes, src, dst, geomOff, geom, length, cls, flags, access, bush, edgeName, edgeRef, edgeHighway, edgeMaxspeed, strOff, strBytes}
}

export function modeSections(g: ModeGraph) {
  const {rank, orig, upOff, upTo, upW, upT, upD, upX, dnOff, dnFrom, dnW, dnT, dnD, dnX, gOff, gTo, gW, gX, arcTo, arcW, arcT, tiny, srcOff, srcs} = g
  return {rank, orig, upOff, upTo, upW, upT, upD, upX, dnOff, dnFrom, dnW, dnT, dnD, dnX, gOff, gTo, gW, gX, arcTo, arcW, arcT, tiny, srcOff, srcs}
}

/** The routing stage: the network once, then a graph and contraction hierarchy per mode. */
export const routingStage: MapStage = {
  name: 'routing',
  // 2: street names and weights in the blobs, contraction by workers; 3: via-way turn restrictions;
  // 4: except=vehicle exempts car, truck and bike
  version: 4,
  async build(ctx: StageContext) {
    const net = readNetwork(ctx.db, {borders: false})
    // What each profile cost to build, for `loc` users and bench/route.js.
    ctx.db.exec('CREATE TABLE routing_profiles (mode TEXT PRIMARY KEY, seconds REAL, rss_mb REAL, nodes INTEGER, arcs INTEGER, shortcuts INTEGER, bytes INTEGER)')
    const stat = ctx.db.prepare('INSERT INTO routing_profiles VALUES (?,?,?,?,?,?,?)')
    // Modes contract in parallel (worker threads), the biggest graphs first to balance the workers.
    const modes: ModeArcs[] = MODES.map((mode, k) => ({...modeArcs(net, k, readRestrictions(ctx.db, mode)), k}))
    const order = [...modes].sort((a, b) => b.tail.length - a.tail.length)
    const done = new Float64Array(MODES.length)
    let rss = process.memoryUsage.rss()
    const started = new Float64Array(MODES.length)
    const progress = (k: number) => (fraction: number) => {
      started[k] ||= performance.now() // the contraction began (it may have waited for a worker)
      done[k] = fraction
      rss = Math.max(rss, process.memoryUsage.rss())
      return ctx.progress(done.reduce((a, b) => a + b, 0) / MODES.length, 1)
    }
    const pool = contractors()
    try {
      const contracted = Promise.all(order.map(async (arcs) => {
        const h = await pool.run(arcs, progress(arcs.k))
        const graph = modeGraph(net, arcs, h)
        const bytes = ctx.writeBlob(modeBlob(MODES[arcs.k]), modeSections(graph), ROUTE_BLOB_VERSION)
        rss = Math.max(rss, process.memoryUsage.rss())
        stat.run(MODES[arcs.k], (performance.now() - started[arcs.k]) / 1000, rss / 2 ** 20, graph.rank.length, graph.gTo.length, graph.shortcuts, bytes)
      }))
      contracted.catch(() => {}) // awaited below; a failure here first must not leave it unhandled
      // Meanwhile (the workers do not need them): border crossings, then the shared network's blob.
      await new Promise((resolve) => setImmediate(resolve)) // lets the first arcs be posted
      markBorders(net)
      ctx.writeBlob(EDGES_BLOB, networkSections(net), ROUTE_BLOB_VERSION)
      await contracted
    } finally {
      await pool.close()
    }
  },
  verify(ctx) {
    const edges = ctx.db.prepare('SELECT count(*) FROM edges').pluck().get() as number
    const net = ctx.readBlob(EDGES_BLOB, ROUTE_BLOB_VERSION)
    if (net.array('src', Uint32Array).length !== edges) throw new Error(`${net.file}: edge count differs from map.db (${edges})`)
    for (const mode of MODES) {
      const b = ctx.readBlob(modeBlob(mode), ROUTE_BLOB_VERSION)
      const n = b.array('rank', Uint32Array).length
      if (b.array('upOff', Uint32Array).length !== n + 1 || b.array('arcTo', Int32Array).length !== 2 * edges) throw new Error(`${b.file}: inconsistent section sizes`)
    }
  },
}
