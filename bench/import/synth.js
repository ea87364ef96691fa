// Writes a synthetic N× OSM PBF: the source file's objects replicated N times with ids shifted by
// k·ID_SHIFT and coordinates moved to disjoint parts of the globe, so the copies never touch and the
// output stays sorted (all nodes, then ways, then relations, ids ascending).
import {closeSync, openSync, writeSync} from 'node:fs'
import {deflateSync} from 'node:zlib'
import Pbf from 'pbf'
import {readPbf} from '../../dist/osm/pbf.js'

const ID_SHIFT = 1e11
// [dlon, dlat] in 1e-7 degrees; the benchmark source spans lon -123.3..14.9, lat 35.8..49.7.
// Copies 5–10 (bench/geocode's 10×) fill the latitude bands between: 20° apart, the source spans 14°.
const SHIFTS = [[0, 0], [0, -600_000_000], [1_600_000_000, 0], [1_600_000_000, -600_000_000],
  [0, -200_000_000], [1_600_000_000, -200_000_000], [0, -400_000_000], [1_600_000_000, -400_000_000], [0, -800_000_000], [1_600_000_000, -800_000_000]]
const PER_BLOCK = 8000

export async function writeReplicated(source, target, copies) {
  if (copies > SHIFTS.length) throw new Error(`at most ${SHIFTS.length} copies`)
  const fd = openSync(target, 'w')
  try {
    writeBlob(fd, 'OSMHeader', headerBlock())
    for (const type of ['node', 'way', 'relation']) {
      const block = new BlockWriter(type, fd)
      for (let k = 0; k < copies; k++) {
        const shift = k * ID_SHIFT
        const [dlon, dlat] = SHIFTS[k]
        await readPbf(source, {
          node: (id, lon, lat, tags) => type === 'node' && block.add({id: id + shift, lon: lon + dlon, lat: lat + dlat, tags}),
          way: (id, refs, count, tags) => type === 'way' && block.add({id: id + shift, refs: Array.from(refs.subarray(0, count), (r) => r + shift), tags}),
          relation: (id, members, tags) => type === 'relation' && block.add({id: id + shift, members: members.map((m) => ({...m, ref: m.ref + shift})), tags}),
        })
      }
      block.flush()
    }
  } finally {
    closeSync(fd)
  }
}

/** Writes objects as a sorted PBF: nodes {id, lon, lat, tags} (1e-7 degrees), ways {id, refs, tags}, relations {id, members, tags}. */
export function writePbf(target, {nodes = [], ways = [], relations = []}) {
  const fd = openSync(target, 'w')
  try {
    writeBlob(fd, 'OSMHeader', headerBlock())
    for (const [type, list] of [['node', nodes], ['way', ways], ['relation', relations]]) {
      const block = new BlockWriter(type, fd)
      for (const item of [...list].sort((a, b) => a.id - b.id)) block.add(item)
      block.flush()
    }
  } finally {
    closeSync(fd)
  }
}

function headerBlock() {
  const pbf = new Pbf()
  pbf.writeStringField(4, 'OsmSchema-V0.6')
  pbf.writeStringField(4, 'DenseNodes')
  pbf.writeStringField(16, 'loc bench/import synth')
  return pbf.finish()
}

function writeBlob(fd, type, data) {
  const blob = new Pbf()
  blob.writeVarintField(2, data.length)
  blob.writeBytesField(3, deflateSync(data, {level: 6}))
  const body = blob.finish()
  const header = new Pbf()
  header.writeStringField(1, type)
  header.writeVarintField(3, body.length)
  const head = header.finish()
  const len = Buffer.alloc(4)
  len.writeUInt32BE(head.length)
  writeSync(fd, len)
  writeSync(fd, head)
  writeSync(fd, body)
}

class BlockWriter {
  constructor(type, fd) {
    this.type = type
    this.fd = fd
    this.items = []
  }

  add(item) {
    this.items.push(item)
    if (this.items.length === PER_BLOCK) this.flush()
  }

  flush() {
    if (!this.items.length) return
    const strings = new Map([['', 0]])
    const sid = (s) => {
      let i = strings.get(s)
      if (i === undefined) strings.set(s, (i = strings.size))
      return i
    }
    const group = new Pbf()
    if (this.type === 'node') {
      const ids = [], lats = [], lons = [], kv = []
      let pid = 0, plat = 0, plon = 0
      for (const n of this.items) {
        ids.push(n.id - pid), lats.push(n.lat - plat), lons.push(n.lon - plon)
        pid = n.id, plat = n.lat, plon = n.lon
        for (const k in n.tags ?? {}) kv.push(sid(k), sid(n.tags[k]))
        kv.push(0)
      }
      group.writeMessage(2, (_, p) => {
        p.writePackedSVarint(1, ids)
        p.writePackedSVarint(8, lats)
        p.writePackedSVarint(9, lons)
        p.writePackedVarint(10, kv)
      }, null)
    } else {
      for (const o of this.items) {
        group.writeMessage(this.type === 'way' ? 3 : 4, (_, p) => {
          p.writeVarintField(1, o.id)
          const keys = Object.keys(o.tags ?? {})
          p.writePackedVarint(2, keys.map(sid))
          p.writePackedVarint(3, keys.map((k) => sid(o.tags[k])))
          if (this.type === 'way') p.writePackedSVarint(8, delta(o.refs))
          else {
            p.writePackedVarint(8, o.members.map((m) => sid(m.role)))
            p.writePackedSVarint(9, delta(o.members.map((m) => m.ref)))
            p.writePackedVarint(10, o.members.map((m) => m.type))
          }
        }, null)
      }
    }
    const block = new Pbf()
    block.writeMessage(1, (_, p) => {
      for (const s of strings.keys()) p.writeBytesField(1, Buffer.from(s))
    }, null)
    block.writeBytesField(2, group.finish())
    writeBlob(this.fd, 'OSMData', block.finish())
    this.items = []
  }
}

function delta(values) {
  const out = new Array(values.length)
  let prev = 0
  for (let i = 0; i < values.length; i++) {
    out[i] = values[i] - prev
    prev = values[i]
  }
  return out
}
