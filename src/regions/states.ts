import {createRequire} from 'node:module'
import Flatbush from 'flatbush'
import {feature} from 'topojson-client'
import {pointInRing} from '../osm/geom.js'

/** A US state from the shapes shipped with the product. */
export interface ShippedState {
  code: string
  name: string
}

/** USPS codes of the Census FIPS state codes in us-atlas. */
const USPS: Record<string, string> = {
  '01': 'AL', '02': 'AK', '04': 'AZ', '05': 'AR', '06': 'CA', '08': 'CO', '09': 'CT', '10': 'DE', '11': 'DC', '12': 'FL', '13': 'GA',
  '15': 'HI', '16': 'ID', '17': 'IL', '18': 'IN', '19': 'IA', '20': 'KS', '21': 'KY', '22': 'LA', '23': 'ME', '24': 'MD', '25': 'MA',
  '26': 'MI', '27': 'MN', '28': 'MS', '29': 'MO', '30': 'MT', '31': 'NE', '32': 'NV', '33': 'NH', '34': 'NJ', '35': 'NM', '36': 'NY',
  '37': 'NC', '38': 'ND', '39': 'OH', '40': 'OK', '41': 'OR', '42': 'PA', '44': 'RI', '45': 'SC', '46': 'SD', '47': 'TN', '48': 'TX',
  '49': 'UT', '50': 'VT', '51': 'VA', '53': 'WA', '54': 'WV', '55': 'WI', '56': 'WY', '60': 'AS', '66': 'GU', '69': 'MP', '72': 'PR', '78': 'VI',
}

interface Shapes {
  states: ShippedState[]
  /** Each state's rings as flat lng,lat arrays (outer and holes: even-odd). */
  rings: number[][][]
  tree: Flatbush
}

let shapes: Shapes | undefined

/**
 * The US states of us-atlas (U.S. Census Bureau cartographic boundaries at 1:10,000,000, 115 KB):
 * DECISIONS' "shipped US state shapes", used where no imported admin level 4 area answers.
 * Boundaries are generalised (off by up to a few kilometres along state lines). Loaded on first use.
 */
function load(): Shapes {
  if (shapes) return shapes
  const topology = createRequire(import.meta.url)('us-atlas/states-10m.json') as {objects: {states: unknown}}
  const states: ShippedState[] = []
  const rings: number[][][] = []
  const boxes: number[][] = []
  for (const f of feature(topology, topology.objects.states).features) {
    const code = f.id ? USPS[f.id] : undefined
    if (!code || !f.geometry) continue
    const polygons = (f.geometry.type === 'Polygon' ? [f.geometry.coordinates] : f.geometry.coordinates) as number[][][][]
    const flat = polygons.flatMap((polygon) => polygon.map((ring) => ring.flat()))
    const box = [Infinity, Infinity, -Infinity, -Infinity]
    for (const ring of flat) {
      for (let i = 0; i < ring.length; i += 2) {
        box[0] = Math.min(box[0], ring[i]); box[1] = Math.min(box[1], ring[i + 1])
        box[2] = Math.max(box[2], ring[i]); box[3] = Math.max(box[3], ring[i + 1])
      }
    }
    states.push({code, name: f.properties.name})
    rings.push(flat)
    boxes.push(box)
  }
  const tree = new Flatbush(boxes.length)
  for (const [minX, minY, maxX, maxY] of boxes) tree.add(minX, minY, maxX, maxY)
  tree.finish()
  return (shapes = {states, rings, tree})
}

/** The US state (or territory) whose shipped shape holds the point; undefined outside them. */
export function shippedStateAt(lng: number, lat: number): ShippedState | undefined {
  const {states, rings, tree} = load()
  for (const i of tree.search(lng, lat, lng, lat)) {
    let inside = false
    for (const ring of rings[i]) if (pointInRing(lng, lat, ring)) inside = !inside
    if (inside) return states[i]
  }
  return undefined
}
