/**
 * Travel modes: who may use an edge in which direction, how fast, and what `avoid` can exclude.
 * Speeds are free-flow (no traffic data): the tagged `maxspeed` (direction-specific when tagged),
 * capped per mode, else a default per road class.
 */
export const MODES = ['car', 'truck', 'bike', 'foot'] as const
export type Mode = (typeof MODES)[number]

/** Bits of the per-edge `flags` byte, tested by `avoid`. */
export const AVOID_BITS = {tolls: 1, highways: 2, ferries: 4, borderCrossings: 8} as const
export type Avoid = keyof typeof AVOID_BITS

/** Class codes stored per edge (index into this list). */
export const CLASSES = ['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'minor', 'service', 'track', 'path', 'ferry'] as const

const CAR_KMH: Record<string, number> = {motorway: 110, trunk: 90, primary: 65, secondary: 55, tertiary: 45, minor: 30, service: 15, track: 10, path: 5, ferry: 20}
const HIGHWAY_KMH: Record<string, number> = {residential: 25, living_street: 10, unclassified: 35, motorway_link: 60, trunk_link: 50, primary_link: 45}
const BIKE_KMH: Record<string, number> = {steps: 3, footway: 6, pedestrian: 6, path: 12, track: 12, ferry: 15}
const FOOT_KMH: Record<string, number> = {steps: 3, ferry: 15}

/** The default vehicle `truck` routes for (a 36 t articulated lorry); edges with lower limits are closed to it. */
export const TRUCK = {height: 4.0, weight: 36, width: 2.55, length: 16.5}

export interface EdgeRow {
  cls: string
  highway: string | null
  maxspeed: number | null
  /** maxspeed in this direction when tagged separately */
  dirMaxspeed: number | null
}

/** km/h of `mode` along an edge in one direction. */
export function speedKmh(mode: Mode, e: EdgeRow): number {
  if (mode === 'foot') return FOOT_KMH[e.highway ?? ''] ?? FOOT_KMH[e.cls] ?? 5
  if (mode === 'bike') return BIKE_KMH[e.highway ?? ''] ?? BIKE_KMH[e.cls] ?? 16
  const def = HIGHWAY_KMH[e.highway ?? ''] ?? CAR_KMH[e.cls] ?? 30
  const limit = e.dirMaxspeed ?? e.maxspeed
  const kmh = e.cls === 'ferry' ? def : limit ? Math.min(limit, def * 1.3) : def
  return mode === 'truck' ? Math.min(kmh, 80) : kmh
}

/** Deciseconds to travel `meters` at `kmh` (at least 1, so every edge costs something). */
export function deciseconds(meters: number, kmh: number): number {
  return Math.max(1, Math.round((meters / (kmh / 3.6)) * 10))
}
