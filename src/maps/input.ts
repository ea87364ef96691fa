import {refuse} from '../errors.js'
import {decimal, ONCE} from '../validate.js'
import {decodePolyline} from './polyline.js'

/** A parsed `GET /maps/static` request (see docs/api/static-maps.md). */
export interface StaticMapInput {
  width: number
  height: number
  center?: [lon: number, lat: number]
  zoom?: number
  scale: number
  style: string
  language: string
  /** [minLon, minLat, maxLon, maxLat] */
  bbox?: [number, number, number, number]
  markers: MarkerGroup[]
  paths: PathInput[]
}

export interface MarkerGroup {
  color: string
  size: 'normal' | 'small'
  icon?: string
  /** lon, lat pairs */
  points: number[]
}

export interface PathInput {
  stroke: string
  width: number
  border: string
  borderWidth: number
  points: number[]
}

const DEFAULT_COLOR = '#000257'
export const MAX_POINTS = 10_000

/** Standard colour names (CSS level 1 plus orange and grey). */
const NAMED: Record<string, string> = {
  black: '#000000', white: '#ffffff', red: '#ff0000', green: '#008000', blue: '#0000ff', yellow: '#ffff00', orange: '#ffa500',
  purple: '#800080', gray: '#808080', grey: '#808080', silver: '#c0c0c0', maroon: '#800000', olive: '#808000', lime: '#00ff00',
  aqua: '#00ffff', teal: '#008080', navy: '#000080', fuchsia: '#ff00ff', brown: '#a52a2a', pink: '#ffc0cb',
}

const COLOR_STATEMENT = 'a colour as 0xRRGGBB or a standard name (black, white, red, green, blue, yellow, orange, purple, gray, brown, pink, ...)'

/** The colour of option `field` of `param` (`markers`: `color:red`). */
function color(value: string, param: string, field: string): string {
  const v = value.trim().toLowerCase()
  const hex = /^(?:0x|#)([0-9a-f]{6})$/.exec(v)
  if (hex) return `#${hex[1]}`
  if (NAMED[v]) return NAMED[v]
  throw refuse.invalid(param, `${field}: ${COLOR_STATEMENT}`)
}

function one(query: Record<string, unknown>, name: string): string | undefined {
  const v = query[name]
  if (v === undefined) return undefined
  if (typeof v !== 'string') throw refuse.invalid(name, ONCE)
  return v
}

function many(query: Record<string, unknown>, name: string): string[] {
  const v = query[name]
  if (v === undefined) return []
  if (typeof v === 'string') return [v]
  if (Array.isArray(v) && v.every((s) => typeof s === 'string')) return v as string[]
  throw refuse.invalid(name, 'must be a string')
}

function integer(query: Record<string, unknown>, name: string, min: number, max: number, def?: number): number {
  const v = one(query, name)
  if (v === undefined || v === '') {
    if (def === undefined) throw refuse.missing(name)
    return def
  }
  const n = decimal(v.trim())
  if (!Number.isInteger(n) || n < min || n > max) throw refuse.invalid(name, `integer from ${min} to ${max}`)
  return n
}

/** `latitude,longitude` → [lon, lat] */
function latLng(text: string, param: string): [number, number] {
  const parts = text.split(',')
  const [lat, lng] = parts.length === 2 ? parts.map((s) => decimal(s.trim())) : [NaN, NaN]
  if (!(Math.abs(lat) <= 90 && Math.abs(lng) <= 180)) throw refuse.invalid(param, 'latitude,longitude with latitude -90 to 90 and longitude -180 to 180')
  return [lng, lat]
}

/** The size in pixels of option `field` of `param` (`path`: `width:4`). */
function pixels(value: string, param: string, field: string, max: number): number {
  const n = decimal(value.trim())
  if (!(n >= 0 && n <= max)) throw refuse.invalid(param, `${field}: pixels from 0 to ${max}`)
  return n
}

export function parseStaticMap(query: Record<string, unknown>): StaticMapInput {
  const width = integer(query, 'width', 100, 2048)
  const height = integer(query, 'height', 100, 2048)
  const scale = integer(query, 'scale', 1, 3, 1)
  const centerText = one(query, 'center')
  const center = centerText === undefined ? undefined : latLng(centerText, 'center')
  const zoom = one(query, 'zoom') === undefined ? undefined : integer(query, 'zoom', 1, 23)
  const style = one(query, 'style') ?? 'service-default-v1'
  const language = one(query, 'language') ?? 'en-US'
  if (!/^(local|[a-zA-Z]{2}(-[a-zA-Z]{2})?)$/.test(language)) throw refuse.invalid('language', 'a 2-letter ISO 639-1 code (optionally with a region, en-US) or local')
  let bbox: StaticMapInput['bbox']
  const bboxText = one(query, 'bbox')
  if (bboxText !== undefined) {
    const v = bboxText.split(',').map((s) => decimal(s.trim()))
    const ok = v.length === 4 && v.every(Number.isFinite) && v[0] >= -90 && v[2] <= 90 && v[1] >= -180 && v[3] <= 180 && v[0] < v[2] && v[1] < v[3]
    if (!ok) throw refuse.invalid('bbox', 'min_latitude,min_longitude,max_latitude,max_longitude with min below max')
    bbox = [v[1], v[0], v[3], v[2]]
  }
  const markers = many(query, 'markers').map(parseMarkers)
  const paths = many(query, 'path').map(parsePath)
  const total = markers.reduce((n, m) => n + m.points.length / 2, 0) + paths.reduce((n, p) => n + p.points.length / 2, 0)
  if (total > MAX_POINTS) throw refuse.invalid(markers.length ? 'markers' : 'path', `at most ${MAX_POINTS} locations in all`)
  if (!center && !bbox && !total) throw refuse.invalid('center', 'required unless markers, path or bbox are given')
  return {width, height, center, zoom, scale, style, language, bbox, markers, paths}
}

/** `markers=color:red|size:small|lat,lng|lat,lng` */
function parseMarkers(text: string): MarkerGroup {
  const group: MarkerGroup = {color: DEFAULT_COLOR, size: 'normal', points: []}
  for (const token of text.split('|')) {
    if (token.trim() === '') continue
    const option = /^([a-zA-Z]+):(.*)$/.exec(token)
    if (!option) {
      group.points.push(...latLng(token, 'markers'))
      continue
    }
    const [, key, value] = option
    if (key === 'color') group.color = color(value, 'markers', key)
    else if (key === 'size') {
      if (value !== 'small' && value !== 'normal' && value !== 'mid' && value !== 'large') throw refuse.invalid('markers', 'size: small or normal')
      group.size = value === 'small' ? 'small' : 'normal'
    } else if (key === 'icon') group.icon = value
    else throw refuse.invalid('markers', 'options are color, size and icon, then latitude,longitude locations')
  }
  if (!group.points.length) throw refuse.invalid('markers', 'at least one latitude,longitude location')
  return group
}

/** `path=stroke:0xff0000|width:4|lat,lng|lat,lng` or `path=...|enc:<polyline>` */
function parsePath(text: string): PathInput {
  const path: PathInput = {stroke: DEFAULT_COLOR, width: 3, border: '#ffffff', borderWidth: 2, points: []}
  const tokens = text.split('|')
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i]
    if (token.trim() === '') continue
    const enc = /^enc(6)?:/.exec(token)
    if (enc) {
      // a polyline may itself hold '|': it runs to the end
      const encoded = tokens.slice(i).join('|').slice(enc[0].length)
      const decoded = decodePolyline(encoded, enc[1] ? 6 : 5)
      if (!decoded) throw refuse.invalid('path', `${enc[0]} an encoded polyline (precision ${enc[1] ? 6 : 5}) of valid locations`)
      path.points.push(...decoded)
      break
    }
    const option = /^([a-zA-Z]+):(.*)$/.exec(token)
    if (!option) {
      path.points.push(...latLng(token, 'path'))
      continue
    }
    const [, key, value] = option
    if (key === 'stroke' || key === 'color') path.stroke = color(value, 'path', key)
    else if (key === 'width') path.width = pixels(value, 'path', key, 50)
    else if (key === 'border') path.border = color(value, 'path', key)
    else if (key === 'borderWidth' || key === 'borderwidth') path.borderWidth = pixels(value, 'path', key, 20)
    else throw refuse.invalid('path', 'options are stroke, width, border and borderWidth, then latitude,longitude locations or enc:/enc6: polylines')
  }
  if (path.points.length < 2) throw refuse.invalid('path', 'at least one latitude,longitude location or an encoded polyline')
  return path
}
