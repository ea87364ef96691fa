import {mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import Database from 'better-sqlite3'
import {readBlob, writeBlob} from '../../src/map/blob.js'
import {ModeRouter, Network} from '../../src/routing/engine.js'
import {readNetwork} from '../../src/routing/graph.js'
import {MODES, type Mode} from '../../src/routing/profile.js'
import {buildModeGraph, modeSections, networkSections} from '../../src/routing/stage.js'
import {roadExtra} from '../../src/osm/road-extra.js'
import {type RoadEdge, viaWayChain} from '../../src/osm/roads.js'
import {MAP_SCHEMA} from '../../src/osm/schema.js'
import {roadAttrs} from '../../src/osm/tags.js'

/**
 * A hand-drawn road grid, the way OSRM's cucumber features read: each letter of `map` is a node
 * (columns 100 m apart at the equator's scale, rows 100 m), each way a string of node letters with
 * OSM tags; restrictions name from/to ways and the via node, or the via way(s) (comma-separated names).
 */
export interface Grid {
  map: string
  ways: Record<string, {nodes: string; tags: Record<string, string>}>
  restrictions?: {type: string; from: string; via: string; to: string; except?: string}[]
  /** `[lon, lat]` of the map's top-left corner (default 0, 0) */
  origin?: [number, number]
}

const STEP = 100 / 111_320

export interface GridRouter {
  router(mode: Mode): ModeRouter
  at(letter: string): [number, number]
  /** node letters a route passes, from its start to its end (or null when there is none) */
  route(mode: Mode, from: string, to: string, avoid?: number): string | null
  close(): void
}

export async function grid(spec: Grid): Promise<GridRouter> {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'loc-grid-'))
  const db = new Database(':memory:')
  db.exec(MAP_SCHEMA)
  const pos = new Map<string, [number, number]>()
  spec.map.split('\n').filter((l) => l.trim()).forEach((row, y) => {
    for (let x = 0; x < row.length; x++) if (/[a-z0-9]/.test(row[x])) pos.set(row[x], [(spec.origin?.[0] ?? 0) + (x / 2) * STEP, (spec.origin?.[1] ?? 0) - y * STEP])
  })
  const nodeId = new Map<string, number>()
  const letterOf = new Map<number, string>()
  for (const [l, [lon, lat]] of pos) {
    nodeId.set(l, nodeId.size + 1)
    letterOf.set(nodeId.size - 1, l)
    db.prepare('INSERT INTO graph_nodes VALUES (?,?,?,?)').run(nodeId.size, nodeId.size, lon, lat)
  }
  const edgesOfWay = new Map<string, number[]>()
  let edge = 0
  let wayId = 0
  for (const [name, way] of Object.entries(spec.ways)) {
    const a = roadAttrs(way.tags)!
    const x = roadExtra(way.tags)
    wayId++
    const list: number[] = []
    for (let i = 1; i < way.nodes.length; i++) {
      const p = pos.get(way.nodes[i - 1])!, q = pos.get(way.nodes[i])!
      const geom = Int32Array.from([Math.round(p[0] * 1e7), Math.round(p[1] * 1e7), Math.round(q[0] * 1e7), Math.round(q[1] * 1e7)])
      const len = Math.hypot(p[0] - q[0], p[1] - q[1]) * 111_320
      edge++
      db.prepare('INSERT INTO edges VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)').run(edge, nodeId.get(way.nodes[i - 1]), nodeId.get(way.nodes[i]), wayId, len, a.cls, name, null, a.maxspeed, a.oneway,
        a.car, a.truck, a.bike, a.foot, +a.toll, +a.ferry, 0, 0, Buffer.from(geom.buffer))
      db.prepare('INSERT INTO edge_attrs VALUES (?,?,?,?,?,?,?,?,?,?,?)').run(edge, x.highway, x.maxspeedForward, x.maxspeedBackward, x.maxheight, x.maxweight, x.maxwidth, x.maxlength, +x.noHazmat, +x.destination, +x.motorroad)
      list.push(edge)
    }
    edgesOfWay.set(name, list)
  }
  const roadEdges = (way: string): RoadEdge[] => edgesOfWay.get(way)!.map((id) => ({id, ...(db.prepare('SELECT source, target, car FROM edges WHERE id = ?').get(id) as {source: number; target: number; car: number})}))
  spec.restrictions?.forEach((r, i) => {
    const insert = db.prepare('INSERT INTO turn_restrictions VALUES (?,?,?,?,?,?,?,?,?,?,?,?)')
    if (r.via.split(',').every((w) => w in spec.ways)) {
      // via ways, resolved as the importer does
      const chain = viaWayChain(roadEdges(r.from), r.via.split(',').flatMap(roadEdges), roadEdges(r.to))
      insert.run(i + 1, i + 1, r.type, null, r.except ?? null, 0, null, 0, 0, chain?.from ?? null, chain?.to ?? null, chain?.via.join(',') ?? null)
      return
    }
    const touching = (way: string) => roadEdges(way).find((e) => e.source === nodeId.get(r.via) || e.target === nodeId.get(r.via))?.id
    insert.run(i + 1, i + 1, r.type, null, r.except ?? null, 0, nodeId.get(r.via), null, 0, touching(r.from), touching(r.to), null)
  })
  const net = readNetwork(db)
  const netFile = path.join(dir, 'net.bin')
  writeBlob(netFile, 'route-edges', 1, networkSections(net))
  const network = new Network(readBlob(netFile))
  const routers = new Map<Mode, ModeRouter>()
  for (let k = 0; k < MODES.length; k++) {
    const file = path.join(dir, `${MODES[k]}.bin`)
    writeBlob(file, 'route-mode', 1, modeSections(await buildModeGraph(net, db, k)))
    routers.set(MODES[k], new ModeRouter(network, readBlob(file), k))
  }
  const at = (l: string) => pos.get(l)!
  return {
    router: (mode) => routers.get(mode)!,
    at,
    route(mode, from, to, avoid) {
      const r = routers.get(mode)!
      const a = r.snap(...at(from), 10, avoid), b = r.snap(...at(to), 10, avoid)
      if (!a || !b) return null
      const path = avoid ? r.dijkstra(a, {to: b, avoid}).path : r.route(a, b)
      if (!path) return null
      const letters = [from]
      for (const arc of path.arcs) {
        const e = arc >> 1
        const node = arc & 1 ? network.src[e] : network.dst[e]
        const l = letterOf.get(node)!
        if (letters[letters.length - 1] !== l) letters.push(l)
      }
      while (letters.length > 1 && letters[letters.length - 1] !== to) letters.pop()
      return letters.join('')
    },
    close() {
      db.close()
      rmSync(dir, {recursive: true, force: true})
    },
  }
}
