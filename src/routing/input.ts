import {z} from 'zod'
import {bool, datetime, decimal, latLng, list, num} from '../validate.js'
import {AVOID_BITS, type Avoid, type Mode, MODES} from './profile.js'
import {LANGS} from './steps.js'

const units = z.enum(['metric', 'imperial']).default('imperial')
const mode = z.enum(MODES)
const geometry = (def: 'none' | 'polyline6') => z.enum(['none', 'linestring', 'polyline5', 'polyline6']).default(def)
const avoid = (allowed: Avoid[]) =>
  list(z.string()).refine((a) => a.every((v) => (allowed as string[]).includes(v)), {message: `comma-separated list of ${allowed.join(', ')}`})
    .transform((a) => a as Avoid[]).optional()
/** Accepted, not used: durations are free-flow (no traffic data). */
const departureTime = datetime().optional()

/** `latitude,longitude|latitude,longitude|…` → `[lng, lat][]` with between `min` and `max` items. */
const locations = (min: number, max: number) => {
  const message = `${min} to ${max} "latitude,longitude" pairs separated by |, latitude -90 to 90, longitude -180 to 180`
  return z.preprocess((v) => (typeof v === 'string' ? points(v) : v),
    z.custom<[number, number][]>((v) => Array.isArray(v) && v.length >= min && v.length <= max && v.every(isLngLat), {message}))
}

function points(v: string): [number, number][] | string {
  const out: [number, number][] = []
  for (const part of v.split('|')) {
    const xy = part.split(',').map((s) => decimal(s.trim()))
    if (xy.length !== 2 || xy.some(Number.isNaN)) return v
    out.push([xy[1], xy[0]])
  }
  return out
}

const isLngLat = (p: unknown) => Array.isArray(p) && p.length === 2 && Math.abs(p[0]) <= 180 && Math.abs(p[1]) <= 90

const ALL_AVOID = Object.keys(AVOID_BITS) as Avoid[]

export const distanceQuery = z.object({
  origin: latLng(),
  destination: latLng(),
  modes: list(z.string()).refine((m) => m.length > 0 && m.every((v) => (MODES as readonly string[]).includes(v)), {message: `comma-separated list of ${MODES.join(', ')}`})
    .transform((m) => [...new Set(m)] as Mode[]),
  units,
  avoid: avoid(ALL_AVOID),
  geometry: geometry('none'),
  departureTime,
})

export const MATRIX_MAX_CELLS = 625

export const matrixQuery = z.object({
  origins: locations(1, MATRIX_MAX_CELLS),
  destinations: locations(1, MATRIX_MAX_CELLS),
  mode,
  units,
  avoid: avoid(['tolls', 'highways', 'ferries']),
  departureTime,
}).superRefine((q, ctx) => {
  if (q.origins.length * q.destinations.length > MATRIX_MAX_CELLS) {
    ctx.addIssue({code: 'custom', path: ['destinations'], message: `at most ${MATRIX_MAX_CELLS} routes (origins × destinations)`})
  }
})

export const directionsQuery = z.object({
  locations: locations(2, 25),
  mode: mode.default('car'),
  units,
  avoid: avoid(ALL_AVOID),
  geometry: geometry('polyline6'),
  departureTime,
  heading: num().pipe(z.number().min(0, {message: 'range 0 to 360'}).max(360, {message: 'range 0 to 360'})).optional(),
  alternatives: bool().default(false),
  lang: z.enum(LANGS).default('en'),
}).superRefine((q, ctx) => {
  if (q.alternatives && q.locations.length !== 2) ctx.addIssue({code: 'custom', path: ['alternatives'], message: 'only with exactly two locations'})
})

export const optimizeQuery = z.object({
  locations: locations(2, 10),
  mode: mode.default('car'),
  units,
  geometry: geometry('none'),
  departureTime,
})

export const MATCH_MAX_POINTS = 1000

/** `POST /route/match` body. */
export const matchBody = z.object({
  path: z.array(z.object({
    coordinates: latLng(),
    createdAt: datetime().optional(),
    accuracy: num().pipe(z.number().min(0, {message: 'must be at least 0 (metres)'}).max(10_000, {message: 'must be at most 10000 (metres)'})).optional(),
  }), {error: `an array of 1 to ${MATCH_MAX_POINTS} {coordinates, createdAt?, accuracy?} points`})
    .min(1, {message: `an array of 1 to ${MATCH_MAX_POINTS} {coordinates, createdAt?, accuracy?} points`})
    .max(MATCH_MAX_POINTS, {message: `an array of 1 to ${MATCH_MAX_POINTS} {coordinates, createdAt?, accuracy?} points`})
    .transform((path) => path.map((p) => ({at: p.coordinates as [number, number], createdAt: p.createdAt, accuracy: p.accuracy}))),
  mode: mode.default('car'),
  roadAttributes: list(z.string()).refine((a) => a.every((v) => ['speedLimit', 'names', 'roadClass'].includes(v)), {message: 'comma-separated list of speedLimit, names, roadClass'})
    .transform((a) => a as ('speedLimit' | 'names' | 'roadClass')[]).default([]),
  units,
  geometry: geometry('polyline6'),
})
