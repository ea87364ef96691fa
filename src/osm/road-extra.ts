import type {Tags} from './pbf.js'
import {parseMaxspeed} from './tags.js'

/**
 * Road attributes routing needs beyond the shared `edges` columns, stored one row per edge in
 * `edge_attrs`: the raw highway value (cycleway, footway and steps all share class `path`),
 * direction-specific speed limits and the limits trucks must respect.
 */
export interface RoadExtra {
  highway: string | null
  maxspeedForward: number | null
  maxspeedBackward: number | null
  /** metres */
  maxheight: number | null
  /** tonnes */
  maxweight: number | null
  /** metres */
  maxwidth: number | null
  /** metres */
  maxlength: number | null
  /** hazmat=no */
  noHazmat: boolean
  /** access, vehicle or motor_vehicle = destination: may start or end a route here, not pass through */
  destination: boolean
  motorroad: boolean
}

export function roadExtra(tags: Tags): RoadExtra {
  const dest = (k: string) => tags[k] === 'destination' || tags[k] === 'delivery'
  return {
    highway: tags.highway ?? (tags.route === 'ferry' ? 'ferry' : null),
    maxspeedForward: parseMaxspeed(tags['maxspeed:forward']),
    maxspeedBackward: parseMaxspeed(tags['maxspeed:backward']),
    maxheight: parseLength(tags.maxheight ?? tags['maxheight:physical']),
    maxweight: parseWeight(tags.maxweight ?? tags['maxweight:hgv']),
    maxwidth: parseLength(tags.maxwidth ?? tags['maxwidth:physical']),
    maxlength: parseLength(tags.maxlength),
    noHazmat: tags.hazmat === 'no',
    destination: dest('access') || dest('vehicle') || dest('motor_vehicle') || dest('motorcar'),
    motorroad: tags.motorroad === 'yes',
  }
}

/** Metres from "4", "4.5 m", "4.2m", `13'6"` (feet and inches); null when absent or unparseable ("none", "default"). */
export function parseLength(v: string | undefined): number | null {
  if (!v) return null
  const t = v.trim()
  const m = /^(\d+(?:\.\d+)?)\s*(m)?$/.exec(t)
  if (m) return Number(m[1])
  const ft = /^(\d+)\s*'\s*(?:(\d+)\s*")?$/.exec(t)
  if (ft) return Math.round((Number(ft[1]) * 0.3048 + Number(ft[2] ?? 0) * 0.0254) * 100) / 100
  return null
}

/** Tonnes from "7.5", "7.5 t", "12000 kg", "10 st" (short tons); null when unparseable. */
export function parseWeight(v: string | undefined): number | null {
  if (!v) return null
  const m = /^(\d+(?:\.\d+)?)\s*(t|kg|st|lbs)?$/.exec(v.trim())
  if (!m) return null
  const n = Number(m[1])
  return m[2] === 'kg' ? n / 1000 : m[2] === 'st' ? n * 0.90718474 : m[2] === 'lbs' ? n * 0.00045359237 : n
}
