import {closeSync, fstatSync, fsyncSync, openSync, readSync, writeSync} from 'node:fs'
import {crc32} from 'node:zlib'

/**
 * Binary blobs of derived map data (`<stage>.bin`), in the spirit of kdbush's serialised index: a
 * fixed header, a section table, then the sections, each starting at an 8-byte boundary so that a
 * reader can view any of them as a typed array without copying.
 *
 *   offset  size  field
 *        0     4  magic "LOCB"
 *        4     2  format version (u16, 1)
 *        6     2  section count (u16)
 *        8     4  CRC-32 of every byte from offset 12 to the end of the file
 *       12     4  kind version (u32): the layout version of what the kind stores
 *       16     8  length of everything after the header (u64)
 *       24    16  kind: ASCII name, zero-padded (e.g. "places")
 *       40  32×n  sections: name (16 bytes ASCII, zero-padded), offset from file start (u64), length (u64)
 *
 * All integers are little-endian.
 */
export const BLOB_MAGIC = 'LOCB'
export const BLOB_FORMAT = 1
const HEADER = 40
const ENTRY = 32
const NAME = 16

export type Sections = Record<string, ArrayBufferView | ArrayBufferLike>

type TypedArrayOf<T> = {new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number}

export interface MapBlob {
  file: string
  kind: string
  version: number
  /** file size */
  bytes: number
  names(): string[]
  /** A section's bytes (a view into the file's buffer, 8-byte aligned), or an error naming the file. */
  section(name: string): Uint8Array
  /** A section viewed as a typed array, without copying. */
  array<T>(name: string, type: TypedArrayOf<T>): T
}

const align8 = (n: number) => (n + 7) & ~7
const ZEROS = new Uint8Array(8)
// zlib.crc32 returns 0 for a view of an empty ArrayBuffer (Node 20.20), whatever the running value.
const crcMore = (bytes: Uint8Array, crc: number) => (bytes.length ? crc32(bytes, crc) : crc)

function bytesOf(v: ArrayBufferView | ArrayBufferLike): Uint8Array {
  return ArrayBuffer.isView(v) ? new Uint8Array(v.buffer, v.byteOffset, v.byteLength) : new Uint8Array(v)
}

function putName(view: DataView, at: number, name: string, what: string): void {
  if (!/^[\x21-\x7e]{1,16}$/.test(name)) throw new Error(`blob ${what} "${name}": use 1 to ${NAME} printable ASCII characters`)
  for (let i = 0; i < name.length; i++) view.setUint8(at + i, name.charCodeAt(i))
}

function getName(bytes: Uint8Array, at: number): string {
  let end = at
  while (end < at + NAME && bytes[end] !== 0) end++
  return String.fromCharCode(...bytes.subarray(at, end))
}

/** Writes a blob and fsyncs it; returns its size in bytes. */
export function writeBlob(file: string, kind: string, version: number, sections: Sections): number {
  const parts = Object.entries(sections).map(([name, v]) => ({name, bytes: bytesOf(v)}))
  const head = new Uint8Array(HEADER + ENTRY * parts.length)
  const view = new DataView(head.buffer)
  putName(view, 0, BLOB_MAGIC, 'magic')
  view.setUint16(4, BLOB_FORMAT, true)
  view.setUint16(6, parts.length, true)
  view.setUint32(12, version, true)
  putName(view, 24, kind, 'kind')
  let offset = head.length
  parts.forEach((p, i) => {
    const at = HEADER + i * ENTRY
    putName(view, at, p.name, 'section')
    view.setBigUint64(at + 16, BigInt(offset), true)
    view.setBigUint64(at + 24, BigInt(p.bytes.length), true)
    offset = align8(offset + p.bytes.length)
  })
  view.setBigUint64(16, BigInt(offset - HEADER), true)
  let crc = crc32(head.subarray(12))
  for (const p of parts) crc = crcMore(ZEROS.subarray(0, align8(p.bytes.length) - p.bytes.length), crcMore(p.bytes, crc))
  view.setUint32(8, crc, true)

  const fd = openSync(file, 'w')
  try {
    writeAll(fd, head)
    for (const p of parts) {
      writeAll(fd, p.bytes)
      writeAll(fd, ZEROS.subarray(0, align8(p.bytes.length) - p.bytes.length))
    }
    fsyncSync(fd)
  } finally {
    closeSync(fd)
  }
  return offset
}

function writeAll(fd: number, bytes: Uint8Array): void {
  for (let done = 0; done < bytes.length;) done += writeSync(fd, bytes, done)
}

/**
 * Reads a whole blob into one fresh ArrayBuffer (so sections are aligned) and checks magic, format
 * version, length and checksum, and the kind and its version when given. Errors name the file.
 */
export function readBlob(file: string, expect: {kind?: string; version?: number} = {}): MapBlob {
  const bytes = readAll(file)
  const fail = (what: string): never => {
    throw new Error(`${file}: ${what}`)
  }
  if (bytes.length < HEADER) fail(`truncated blob (${bytes.length} bytes, shorter than its ${HEADER}-byte header)`)
  const view = new DataView(bytes.buffer)
  const magic = String.fromCharCode(...bytes.subarray(0, 4))
  if (magic !== BLOB_MAGIC) fail(`not a loc blob (magic ${JSON.stringify(magic)}, expected "${BLOB_MAGIC}")`)
  const format = view.getUint16(4, true)
  if (format !== BLOB_FORMAT) fail(`blob format version ${format}; this build reads version ${BLOB_FORMAT}`)
  const length = Number(view.getBigUint64(16, true))
  if (HEADER + length !== bytes.length) fail(`${HEADER + length < bytes.length ? 'trailing bytes' : 'truncated blob'}: the header says ${HEADER + length} bytes, the file has ${bytes.length}`)
  if (crc32(bytes.subarray(12)) !== view.getUint32(8, true)) fail('checksum mismatch: the blob is corrupt')
  const kind = getName(bytes, 24)
  const version = view.getUint32(12, true)
  if (expect.kind !== undefined && kind !== expect.kind) fail(`holds "${kind}", expected "${expect.kind}"`)
  if (expect.version !== undefined && version !== expect.version) fail(`${kind} version ${version}; this build reads version ${expect.version}`)

  const sections = new Map<string, Uint8Array>()
  const count = view.getUint16(6, true)
  for (let i = 0; i < count; i++) {
    const at = HEADER + i * ENTRY
    const offset = Number(view.getBigUint64(at + 16, true))
    const size = Number(view.getBigUint64(at + 24, true))
    if (offset % 8 || offset + size > bytes.length) fail(`section ${i} lies outside the file`)
    sections.set(getName(bytes, at), bytes.subarray(offset, offset + size))
  }
  const section = (name: string) => sections.get(name) ?? fail(`no section "${name}" in this ${kind} blob`)
  return {
    file, kind, version, bytes: bytes.length,
    names: () => [...sections.keys()],
    section,
    array(name, type) {
      const s = section(name)
      if (s.byteLength % type.BYTES_PER_ELEMENT) fail(`section "${name}" is not a whole number of ${type.BYTES_PER_ELEMENT}-byte items`)
      return new type(s.buffer, s.byteOffset, s.byteLength / type.BYTES_PER_ELEMENT)
    },
  }
}

/**
 * A blob's string table read on demand: string i is the UTF-8 of `bytes[offsets[i] .. offsets[i + 1])`,
 * decoded on first use and kept (a view draws or a route names a few of many thousands).
 */
export class StringTable {
  private readonly decoded: (string | undefined)[]
  private readonly decoder = new TextDecoder()

  constructor(private readonly bytes: Uint8Array, private readonly offsets: Uint32Array) {
    this.decoded = new Array(Math.max(0, offsets.length - 1))
  }

  at(i: number): string {
    return (this.decoded[i] ??= this.decoder.decode(this.bytes.subarray(this.offsets[i], this.offsets[i + 1])))
  }
}

function readAll(file: string): Uint8Array {
  const fd = openSync(file, 'r')
  try {
    const bytes = new Uint8Array(new ArrayBuffer(fstatSync(fd).size))
    for (let done = 0; done < bytes.length;) {
      const n = readSync(fd, bytes, done, bytes.length - done, done)
      if (n === 0) return bytes.subarray(0, done)
      done += n
    }
    return bytes
  } finally {
    closeSync(fd)
  }
}
