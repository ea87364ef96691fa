import {mkdtempSync, readFileSync, rmSync, writeFileSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {afterAll, describe, expect, it} from 'vitest'
import {readBlob, writeBlob} from '../../src/map/index.js'

const dir = mkdtempSync(path.join(os.tmpdir(), 'loc-blob-'))
afterAll(() => rmSync(dir, {recursive: true, force: true}))

const ids = Uint32Array.from([7, 1, 3]) // 12 bytes: the next section needs padding
const coords = Float64Array.from([7.42, 43.73, 7.43, 43.74, 7.44, 43.75])

function sample(name: string): string {
  const file = path.join(dir, name)
  writeBlob(file, 'places', 3, {ids, coords, empty: new Uint8Array(0)})
  return file
}

/** A copy of the sample blob with its bytes changed by `mutate`. */
function damaged(name: string, mutate: (b: Buffer) => Buffer): string {
  const file = path.join(dir, name)
  writeFileSync(file, mutate(readFileSync(sample(`${name}.orig`))))
  return file
}

describe('blobs', () => {
  it('round trip: sections come back as aligned typed-array views of one buffer', () => {
    const file = sample('ok.bin')
    const blob = readBlob(file, {kind: 'places', version: 3})
    expect(blob).toMatchObject({kind: 'places', version: 3, bytes: readFileSync(file).length})
    expect(blob.names()).toEqual(['ids', 'coords', 'empty'])
    expect([...blob.array('ids', Uint32Array)]).toEqual([...ids])
    const c = blob.array('coords', Float64Array)
    expect([...c]).toEqual([...coords])
    expect(c.byteOffset % 8).toBe(0)
    expect(c.buffer).toBe(blob.section('ids').buffer) // no copies
    expect(blob.section('empty').length).toBe(0)
    expect(() => blob.section('nope')).toThrow(`${file}: no section "nope" in this places blob`)
    expect(() => blob.array('ids', Float64Array)).toThrow(/not a whole number of 8-byte items/)
  })

  it('a flipped byte anywhere after the magic and version fails the checksum', () => {
    const size = readFileSync(sample('size.bin')).length
    for (const at of [9, 13, 30, 45, size - 1]) {
      const file = damaged(`flip-${at}.bin`, (b) => {
        b[at] ^= 0x10
        return b
      })
      expect(() => readBlob(file), `byte ${at}`).toThrow(`${file}: checksum mismatch: the blob is corrupt`)
    }
  })

  it('a truncated file, wrong magic, wrong format version, kind or kind version fail with a clear message', () => {
    const cut = damaged('cut.bin', (b) => b.subarray(0, b.length - 5))
    expect(() => readBlob(cut)).toThrow(new RegExp(`^${cut}: truncated blob: the header says \\d+ bytes, the file has \\d+$`))
    const stub = damaged('stub.bin', (b) => b.subarray(0, 10))
    expect(() => readBlob(stub)).toThrow(`${stub}: truncated blob (10 bytes, shorter than its 40-byte header)`)
    const longer = damaged('longer.bin', (b) => Buffer.concat([b, Buffer.alloc(8)]))
    expect(() => readBlob(longer)).toThrow(/trailing bytes/)
    const magic = damaged('magic.bin', (b) => {
      b.write('KDBU', 0)
      return b
    })
    expect(() => readBlob(magic)).toThrow(`${magic}: not a loc blob (magic "KDBU", expected "LOCB")`)
    const version = damaged('version.bin', (b) => {
      b.writeUInt16LE(2, 4)
      return b
    })
    expect(() => readBlob(version)).toThrow(`${version}: blob format version 2; this build reads version 1`)
    const file = sample('kind.bin')
    expect(() => readBlob(file, {kind: 'routing'})).toThrow(`${file}: holds "places", expected "routing"`)
    expect(() => readBlob(file, {kind: 'places', version: 4})).toThrow(`${file}: places version 3; this build reads version 4`)
    expect(() => readBlob(path.join(dir, 'missing.bin'))).toThrow(/ENOENT/)
  })

  it('refuses names that do not fit the header', () => {
    expect(() => writeBlob(path.join(dir, 'x.bin'), 'a-kind-name-longer-than-16', 1, {})).toThrow(/blob kind/)
    expect(() => writeBlob(path.join(dir, 'x.bin'), 'k', 1, {'': new Uint8Array(1)})).toThrow(/blob section ""/)
  })
})
