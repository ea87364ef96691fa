import {createRequire} from 'node:module'
import type {RegionRouting} from './engine.js'
import {type GeometryKind, type Units, distanceOf, durationOf, geometryOf} from './format.js'
import type {Line, Piece} from './path.js'

type Compiler = {compile(lang: string, step: unknown, opts?: unknown): string}
let compiler: Compiler | undefined
// Loaded on first use: it reads every language's phrases, which no CLI command needs.
const instructions = () => (compiler ??= createRequire(import.meta.url)('osrm-text-instructions')('v5') as Compiler)

export const LANGS = ['de', 'en', 'es', 'fr', 'ja', 'ko', 'pt', 'ru'] as const
export type Lang = (typeof LANGS)[number]
const OTI_LANG: Record<Lang, string> = {de: 'de', en: 'en', es: 'es', fr: 'fr', ja: 'ja', ko: 'ko', pt: 'pt-BR', ru: 'ru'}
const OSRM_MODE: Record<string, string> = {car: 'driving', truck: 'driving', bike: 'cycling', foot: 'walking'}

interface Maneuver {type: string; modifier?: string; bearing_before: number; bearing_after: number}

/** The spec's `manuever` for an OSRM-style maneuver (values beyond the spec's list: straight, uturn). */
export function manuever(m: Maneuver, side?: 'left' | 'right'): string {
  if (m.type === 'depart') return 'start'
  if (m.type === 'arrive') return side ? `destination-${side}` : 'destination'
  const left = m.modifier?.includes('left'), right = m.modifier?.includes('right')
  if (m.type === 'on ramp') return left ? 'ramp-left' : 'ramp-right'
  if (m.type === 'off ramp') return left ? 'exit-left' : 'exit-right'
  if (m.modifier === 'uturn') return 'uturn'
  if (m.modifier === 'slight left') return 'stay-left'
  if (m.modifier === 'slight right') return 'stay-right'
  if (left) return 'left'
  if (right) return 'right'
  return 'straight'
}

function modifierOf(before: number, after: number): string {
  const turn = ((after - before + 540) % 360) - 180
  const a = Math.abs(turn)
  if (a < 20) return 'straight'
  if (a > 170) return 'uturn'
  const side = turn > 0 ? 'right' : 'left'
  return a < 45 ? `slight ${side}` : a < 135 ? side : `sharp ${side}`
}

/**
 * Steps of one leg: a new step wherever the street name changes (or a ramp begins or ends), with
 * its maneuver, instruction text in `lang`, banner and voice instructions announcing the next one.
 * `line` holds the leg's points; each piece names its range of them.
 */
export function legSteps(region: RegionRouting, mode: string, line: Line, ps: Piece[], opts: {lang: Lang; units: Units; geometry: GeometryKind; last: boolean; side?: 'left' | 'right'}) {
  const info = ps.map((p) => region.names?.(p.edge) ?? NO_INFO)
  const groups: {from: number; to: number}[] = []
  for (let i = 0; i < ps.length; i++) {
    const g = groups[groups.length - 1]
    const link = (h: string | null) => !!h?.endsWith('_link')
    if (g && info[i].name === info[g.from].name && info[i].ref === info[g.from].ref && link(info[i].highway) === link(info[g.from].highway)) g.to = i
    else groups.push({from: i, to: i})
  }
  const raw = groups.map((g, k) => {
    const start = ps[g.from].start, end = ps[g.to].end
    const prev = k ? groups[k - 1] : null
    const after = end > start ? line.bearing(start, start + 1) : 0
    const prevEnd = prev ? ps[prev.to].end : 0
    const before = prev && prevEnd > ps[prev.from].start ? line.bearing(prevEnd - 1, prevEnd) : 0
    let type = k === 0 ? 'depart' : 'turn'
    const modifier = k === 0 ? undefined : modifierOf(before, after)
    const hw = info[g.from].highway, prevHw = k ? info[groups[k - 1].from].highway : null
    if (k && hw?.endsWith('_link') && !prevHw?.startsWith('motorway')) type = 'on ramp'
    else if (k && hw === 'motorway_link' && prevHw === 'motorway') type = 'off ramp'
    else if (k && modifier === 'straight') type = 'new name'
    let meters = 0, w = 0
    for (let i = g.from; i <= g.to; i++) {
      meters += ps[i].meters
      w += ps[i].w
    }
    return {start, end, maneuver: {type, modifier, bearing_before: before, bearing_after: after} as Maneuver, name: info[g.from].name ?? '', ref: info[g.from].ref ?? undefined, meters, w}
  })
  if (ps.length) {
    const lastPiece = ps[ps.length - 1], endAt = lastPiece.end
    const before = endAt > lastPiece.start ? line.bearing(endAt - 1, endAt) : 0
    raw.push({start: endAt, end: endAt, maneuver: {type: 'arrive', modifier: opts.side, bearing_before: before, bearing_after: 0}, name: raw[raw.length - 1]?.name ?? '', ref: undefined, meters: 0, w: 0})
  }
  const lang = OTI_LANG[opts.lang]
  const text = (r: (typeof raw)[number]) =>
    instructions().compile(lang, {maneuver: r.maneuver, name: r.name, ref: r.ref, mode: OSRM_MODE[mode]}, COMPILE_OPTS)
  const texts = raw.map(text)
  const steps: Record<string, unknown>[] = []
  raw.forEach((r, i) => {
    if (!opts.last && r.maneuver.type === 'arrive' && i !== raw.length - 1) return
    const next = raw[i + 1] ?? r
    const nextText = texts[i + 1] ?? texts[i]
    const along = Math.round(r.meters * 10) / 10
    const step: Record<string, unknown> = {
      distance: distanceOf(r.meters, opts.units),
      duration: durationOf(r.w),
      start_location: {latitude: line.y(r.start), longitude: line.x(r.start)},
      end_location: {latitude: line.y(r.end), longitude: line.x(r.end)},
      bearing_before: r.maneuver.bearing_before,
      bearing_after: r.maneuver.bearing_after,
      instructions: texts[i],
      banner_instructions: [{distanceAlongGeometry: along, primary: {text: next.name || nextText, type: next.maneuver.type, modifier: next.maneuver.modifier ?? null}}],
      voice_instructions: [{distanceAlongGeometry: along, announcement: nextText, ssmlAnnouncement: `<speak><amazon:effect name="drc"><prosody rate="1.08">${escapeXml(nextText)}</prosody></amazon:effect></speak>`}],
      mode,
      manuever: manuever(r.maneuver, r.maneuver.type === 'arrive' ? opts.side : undefined),
      street_name: r.name,
    }
    if (r.ref && (r.maneuver.type === 'off ramp')) step.exit_name = r.ref
    const g = geometryOf(line, opts.geometry, r.start, r.end, r.maneuver.type === 'arrive')
    if (g) step.geometry = g
    steps.push(step)
  })
  return steps
}

const NO_INFO = {name: null, ref: null, highway: null, maxspeed: null}
const COMPILE_OPTS = {legCount: 1, legIndex: 0}
const escapeXml = (s: string) => s.replace(/[<>&'"]/g, (c) => `&#${c.charCodeAt(0)};`)
