import {countryCodeBeside, countryCodesIn} from '../geocoding/country.js'
import {insidePolygons} from './area-point.js'
import type {Coords} from './geom.js'

/** An assembled admin area that knows its country. */
export interface CountryArea {cc: string | null; level: number; polygons: Coords[][]; b: number[]}

/** Grid cell (degrees) for `mayCross`; the shipped shapes are asked once per cell. */
const CELL = 0.05
/** Margin around a cell: `countryCodeBeside` looks up to 2.5 km past an imported border. */
const MARGIN = 0.03

/**
 * The country at a point while the map is built, by the rule the geocoder's AdminLookup applies:
 * the lowest-level admin area holding the point that knows its country, else the shipped shapes
 * (countryCodeBeside past the region's own country polygons).
 */
export class CountryLocator {
  private readonly areas: CountryArea[]
  private readonly held: ReadonlySet<string>
  private readonly cells = new Map<string, string[]>()

  constructor(areas: CountryArea[]) {
    this.areas = areas.filter((a) => a.cc).sort((x, y) => x.level - y.level)
    this.held = new Set(this.areas.filter((a) => a.level === 2).map((a) => a.cc!))
  }

  at(lon: number, lat: number): string | null {
    for (const a of this.areas) if (insidePolygons(lon, lat, a.polygons, a.b)) return a.cc
    return countryCodeBeside(lon, lat, this.held)
  }

  /** Whether points of a bbox may lie in different countries: the shipped shapes name two or more near it. */
  mayCross(b: number[]): boolean {
    const codes = new Set<string>()
    for (let x = Math.floor(b[0] / CELL); x <= Math.floor(b[2] / CELL); x++) {
      for (let y = Math.floor(b[1] / CELL); y <= Math.floor(b[3] / CELL); y++) {
        for (const c of this.cell(x, y)) codes.add(c)
        if (codes.size > 1) return true
      }
    }
    return false
  }

  private cell(x: number, y: number): string[] {
    const key = `${x},${y}`
    let codes = this.cells.get(key)
    if (!codes) this.cells.set(key, (codes = countryCodesIn([x * CELL - MARGIN, y * CELL - MARGIN, (x + 1) * CELL + MARGIN, (y + 1) * CELL + MARGIN])))
    return codes
  }
}
