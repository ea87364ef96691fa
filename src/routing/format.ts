import polyline from '@mapbox/polyline'
import {type Units, distanceOf} from '../trips/route.js'

export type GeometryKind = 'none' | 'linestring' | 'polyline5' | 'polyline6'

/** A duration as the routing endpoints show it: `value` in minutes, `text` such as "1 hour 5 mins". */
export function durationOf(deciseconds: number): {value: number; text: string} {
  const minutes = deciseconds / 600
  const total = Math.round(minutes)
  const h = Math.floor(total / 60), m = total % 60
  const text = h ? `${h} hour${h > 1 ? 's' : ''}${m ? ` ${m} min${m > 1 ? 's' : ''}` : ''}` : `${m} min${m === 1 ? '' : 's'}`
  return {value: Math.round(minutes * 100) / 100, text}
}

export {distanceOf, type Units}

/** `[lng, lat]` points in the requested encoding (DECISIONS: `{polyline}` or `{linestring}`); undefined for none. */
export function geometryOf(points: [number, number][], kind: GeometryKind): {polyline: string} | {linestring: {type: 'LineString'; coordinates: [number, number][]}} | undefined {
  if (kind === 'none') return undefined
  if (kind === 'linestring') return {linestring: {type: 'LineString', coordinates: points.map(([x, y]) => [round6(x), round6(y)])}}
  return {polyline: polyline.encode(points.map(([x, y]) => [y, x]), kind === 'polyline5' ? 5 : 6)}
}

const round6 = (n: number) => Math.round(n * 1e6) / 1e6

/** Appends `pts` to `line`, dropping a first point equal to the line's last. */
export function extend(line: [number, number][], pts: [number, number][]): void {
  for (const p of pts) {
    const last = line[line.length - 1]
    if (last && last[0] === p[0] && last[1] === p[1]) continue
    line.push(p)
  }
}
