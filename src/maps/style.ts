import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {z} from 'zod'

/** Colours of a base map style (CSS colour strings). */
export interface MapStyle {
  background: string
  water: string
  waterway: string
  park: string
  wood: string
  grass: string
  landuse: string
  residential: string
  industrial: string
  sand: string
  building: string
  buildingLine: string
  rail: string
  boundary: string
  tunnelFill: string
  /** road fills and casings by class */
  road: Record<RoadClass, string>
  casing: Record<RoadClass, string>
  label: string
  labelHalo: string
  roadLabel: string
  waterLabel: string
  parkLabel: string
}

export const ROAD_CLASSES = ['motorway', 'trunk', 'primary', 'secondary', 'tertiary', 'minor', 'service', 'track', 'path', 'ferry'] as const
export type RoadClass = (typeof ROAD_CLASSES)[number]

const roads = (c: [string, string, string, string, string, string, string, string, string, string]) =>
  Object.fromEntries(ROAD_CLASSES.map((k, i) => [k, c[i]])) as Record<RoadClass, string>

const DEFAULT: MapStyle = {
  background: '#f3f0ea', water: '#a9d3f0', waterway: '#8cc2e8', park: '#cfe8c3', wood: '#bcdcae', grass: '#d8ecce',
  landuse: '#ece9e2', residential: '#ede9e3', industrial: '#e8e3ea', sand: '#f3e8c8',
  building: '#e2ddd5', buildingLine: '#d3cdc3', rail: '#b7b1a9', boundary: '#a08db5', tunnelFill: '#f5f3ef',
  road: roads(['#f5b96b', '#f8c97f', '#fbdc98', '#fff2c6', '#ffffff', '#ffffff', '#ffffff', '#e9e3d6', '#d9d2c5', '#7fa9d6']),
  casing: roads(['#d2904a', '#d9a35d', '#dcb674', '#d8c690', '#d3cbbd', '#d7d0c4', '#dcd6cc', '#cfc7b8', '#ffffff', '#7fa9d6']),
  label: '#3f3f46', labelHalo: '#ffffff', roadLabel: '#55555c', waterLabel: '#3c6f9c', parkLabel: '#3f7a3a',
}

const LIGHT: MapStyle = {
  background: '#f6f6f4', water: '#cfe3ef', waterway: '#bcd7e8', park: '#e2eedc', wood: '#dbe9d3', grass: '#e6f0e0',
  landuse: '#f1f1ee', residential: '#f2f2ef', industrial: '#efeef0', sand: '#f4efe1',
  building: '#e9e8e5', buildingLine: '#dcdbd7', rail: '#d0cfcb', boundary: '#bdb6c6', tunnelFill: '#f9f9f8',
  road: roads(['#ffffff', '#ffffff', '#ffffff', '#ffffff', '#ffffff', '#ffffff', '#ffffff', '#f2f1ee', '#e8e7e3', '#bcd7e8']),
  casing: roads(['#d3d2ce', '#d6d5d1', '#d9d8d4', '#dcdbd7', '#e0dfdb', '#e3e2de', '#e6e5e1', '#e3e2de', '#f6f6f4', '#bcd7e8']),
  label: '#6b6b70', labelHalo: '#ffffff', roadLabel: '#85858a', waterLabel: '#7a9ab2', parkLabel: '#7d9a76',
}

const DARK: MapStyle = {
  background: '#1f2329', water: '#13263a', waterway: '#1d3550', park: '#213126', wood: '#1f2f24', grass: '#22302a',
  landuse: '#22262d', residential: '#23272e', industrial: '#262630', sand: '#2b2a26',
  building: '#2c3139', buildingLine: '#353b45', rail: '#444b55', boundary: '#6f6385', tunnelFill: '#2a2f36',
  road: roads(['#6b5a3c', '#5f5540', '#55524a', '#4a4e56', '#434851', '#3d424b', '#363b43', '#33383f', '#30353c', '#2f4a66']),
  casing: roads(['#17191d', '#17191d', '#17191d', '#17191d', '#17191d', '#1a1d22', '#1a1d22', '#1a1d22', '#1f2329', '#2f4a66']),
  label: '#d3d7de', labelHalo: '#1f2329', roadLabel: '#aab0b9', waterLabel: '#7fa3c6', parkLabel: '#8db48a',
}

export const BUILT_IN_STYLES: Record<string, MapStyle> = {
  'service-default-v1': DEFAULT,
  'service-light-v1': LIGHT,
  'service-dark-v1': DARK,
}

export const STYLE_ID = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/

const colour = z.string().regex(/^#[0-9a-fA-F]{6}([0-9a-fA-F]{2})?$/, 'a colour #rrggbb')
/** A custom style file: `extends` a built-in style and overrides any colour. */
const styleFile = z.object({
  extends: z.enum(Object.keys(BUILT_IN_STYLES) as [string, ...string[]]).default('service-default-v1'),
  road: z.record(z.enum(ROAD_CLASSES), colour).optional(),
  casing: z.record(z.enum(ROAD_CLASSES), colour).optional(),
}).catchall(colour)

/**
 * A style by id: a built-in one, or `<stylesDir>/<id>.json`. Custom files are read on each call
 * (the renderer's cache keys include the file's modification time, so an edit shows at once).
 */
export function loadStyle(id: string, stylesDir: string): {style: MapStyle; version: string} | undefined {
  const builtIn = BUILT_IN_STYLES[id]
  if (builtIn) return {style: builtIn, version: id}
  if (!STYLE_ID.test(id)) return undefined
  const file = path.join(stylesDir, `${id}.json`)
  if (!existsSync(file)) return undefined
  const parsed = styleFile.parse(JSON.parse(readFileSync(file, 'utf8')))
  const base = BUILT_IN_STYLES[parsed.extends]
  const {extends: _, road, casing, ...colours} = parsed
  const style = {...base, ...colours, road: {...base.road, ...road}, casing: {...base.casing, ...casing}} as MapStyle
  return {style, version: `${id}@${readFileSync(file).length}`}
}
