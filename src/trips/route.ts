import polyline from '@mapbox/polyline'
import {haversine} from '../osm/geom.js'
import type {TripLocationRow} from './json.js'

export type Units = 'metric' | 'imperial'

const FEET_PER_M = 3.28084
const FEET_PER_MILE = 5280

/** A distance in the routing endpoints' form: `value` in meters (metric) or feet (imperial), and a short text. */
export function distanceOf(meters: number, units: Units): {value: number; text: string} {
  if (units === 'metric') {
    return {value: Math.round(meters * 10) / 10, text: meters < 1000 ? `${Math.round(meters)} m` : `${(meters / 1000).toFixed(1)} km`}
  }
  const feet = meters * FEET_PER_M
  return {value: Math.round(feet * 10) / 10, text: feet < 0.1 * FEET_PER_MILE ? `${Math.round(feet)} ft` : `${(feet / FEET_PER_MILE).toFixed(1)} mi`}
}

/** The path a trip travelled: its length along the recorded points and a polyline6 of them. */
export function travelledRoute(locations: TripLocationRow[], units: Units): {distance: {value: number; text: string}; geometry: {polyline: string}} {
  let meters = 0
  for (let i = 1; i < locations.length; i++) {
    const a = locations[i - 1]
    const b = locations[i]
    meters += haversine(a.lng, a.lat, b.lng, b.lat)
  }
  const points = locations.map((l) => [l.lat, l.lng] as [number, number])
  return {distance: distanceOf(meters, units), geometry: {polyline: polyline.encode(points, 6)}}
}
