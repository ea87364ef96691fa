import {mkdirSync, readFileSync, renameSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {makeDataDir} from '../data-dir.js'
import {refuse} from '../errors.js'

export const MARKER_ID = /^[A-Za-z0-9_-]{1,64}$/
/** Marker images are capped at 64 × 64 pixels (the contract's limit). */
export const MARKER_MAX = 64

export const markersDir = (dataDir: string) => path.join(dataDir, 'markers')

/**
 * Stores a PNG, JPEG or SVG file as the marker image `id` (`markers=icon:<id>|...`): decoded once,
 * scaled down to fit 64 × 64, written as PNG under `<dataDir>/markers/`. Replaces an image of that id.
 */
export async function addMarkerImage(dataDir: string, id: string, file: string): Promise<{id: string; width: number; height: number}> {
  if (!MARKER_ID.test(id)) throw refuse.invalid('id', 'letters, digits, _ and -, at most 64')
  let bytes: Buffer
  try {
    bytes = readFileSync(file)
  } catch {
    throw refuse.invalid('file', `a readable image file (${file} is not)`)
  }
  const {createCanvas, loadImage} = await import('@napi-rs/canvas')
  let image: Awaited<ReturnType<typeof loadImage>>
  try {
    image = await loadImage(bytes)
  } catch {
    throw refuse.invalid('file', 'a PNG, JPEG or SVG image')
  }
  if (!image.width || !image.height) throw refuse.invalid('file', 'a PNG, JPEG or SVG image with a size')
  const k = Math.min(1, MARKER_MAX / Math.max(image.width, image.height))
  const width = Math.max(1, Math.round(image.width * k)), height = Math.max(1, Math.round(image.height * k))
  const canvas = createCanvas(width, height)
  canvas.getContext('2d').drawImage(image, 0, 0, width, height)
  const dir = markersDir(dataDir)
  makeDataDir(dataDir)
  mkdirSync(dir, {recursive: true})
  const target = path.join(dir, `${id}.png`)
  writeFileSync(`${target}.tmp`, canvas.toBuffer('image/png'))
  renameSync(`${target}.tmp`, target)
  return {id, width, height}
}
