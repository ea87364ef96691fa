import {crc32, deflateSync} from 'node:zlib'

/**
 * An RGBA frame as an 8-bit RGBA PNG: rows unfiltered, deflated at level 1. Map images are large
 * flat areas, which fast deflate finds as repeats four bytes back; measured on 600×400 to
 * 2048×2048 maps this is 3 to 9 times faster than Skia's encoder and than our own `up`-filtered RGB
 * encoder (a JavaScript loop per pixel) for files of the same size or smaller.
 */
export function encodePng(rgba: Uint8Array | Uint8ClampedArray, width: number, height: number, level = 1): Buffer {
  const row = width * 4
  const raw = Buffer.allocUnsafe((row + 1) * height)
  const src = Buffer.from(rgba.buffer, rgba.byteOffset, row * height)
  for (let y = 0; y < height; y++) {
    raw[y * (row + 1)] = 0 // filter: none
    src.copy(raw, y * (row + 1) + 1, y * row, (y + 1) * row)
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8 // bit depth
  ihdr[9] = 6 // RGBA
  return Buffer.concat([SIGNATURE, chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw, {level})), chunk('IEND', Buffer.alloc(0))])
}

const SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])

function chunk(type: string, data: Buffer): Buffer {
  const out = Buffer.allocUnsafe(12 + data.length)
  out.writeUInt32BE(data.length, 0)
  out.write(type, 4, 'ascii')
  data.copy(out, 8)
  out.writeUInt32BE(crc32(out.subarray(4, 8 + data.length)), 8 + data.length)
  return out
}
