import type {Engine, MapData} from '../map/mapdata.js'
import {type Doc, memo, readDocs} from './docs.js'
import {geocoder} from './index.js'
import {fold} from './normalize.js'
import {numberKey, postcodeKey, streetKey, unitKey} from './postal.js'

/**
 * One region's addresses as postal records, for `/v1/addresses/validate`. A postal record is one
 * number, street, town and postcode, however many buildings carry it (an address mapped on several
 * buildings, or the ten equal copies of a synthetic 10× region, is one record). Records are found by
 * house number in a postcode or town, streets by their comparable form in a postcode or town: every
 * lookup is keyed, so a larger region makes no list longer. Also: the names an address's town goes
 * by (admin parts and its own `addr:city`) and the addresses of places.
 */
export class ValidationIndex implements Engine {
  /** `number|pc:<postcode>` and `number|town:<folded town>` → postal records, in the order of their first doc */
  readonly byNumberAt = new Map<string, number[]>()
  /** per record: its first doc (the one that answers), the folded names its town goes by (all its docs'), its units (comparable → as mapped) */
  readonly recordDoc: number[] = []
  readonly recordTowns: string[][] = []
  readonly recordUnits: (Map<string, string> | null)[] = []
  /** `street|pc:<postcode>`, `street|town:<town>` and `street|pc:<postcode>|town:<town>` → the first address or street doc there */
  readonly streetAt = new Map<string, number>()
  /** per doc: its comparable street ('' for other layers) */
  readonly streetKeys: string[]
  /** per doc: the folded names its town goes by */
  readonly towns: string[][]
  /** `number|street` of every place (POI) that has an address */
  readonly firms = new Set<string>()
  /** per doc: residential or commercial, from its building's `building=*` (null when that says neither) */
  readonly use: Array<'residential' | 'commercial' | null>
  /** `pc:<postcode>` and `town:<folded town>` → the comparable streets there (a typed street is looked for there only) */
  readonly streetsIn = new Map<string, Set<string>>()
  /** folded postcode → the folded towns its addresses name (a ZIP code's mail goes by several town names) */
  readonly postcodeTowns = new Map<string, Set<string>>()

  constructor(readonly docs: readonly Doc[], raw: ReadonlyMap<number, {city: string | null; building: string | null}>) {
    this.streetKeys = new Array(docs.length)
    this.towns = new Array(docs.length)
    this.use = new Array(docs.length).fill(null)
    // docs repeat the same streets and towns: each is normalised once
    const keyOf = memo(streetKey), folded = memo(fold), townsOf = memo((joined: string) => [...new Set(joined.split('\t').filter(Boolean).map(folded))])
    const records = new Map<string, number>()
    docs.forEach((d, i) => {
      const street = d.street && (d.layer === 'address' || d.layer === 'street' || d.layer === 'place') ? keyOf(d.street) : ''
      this.streetKeys[i] = street
      const own = d.layer === 'address' && d.ref !== null ? raw.get(d.ref) : undefined
      if (own?.building) this.use[i] = RESIDENTIAL.has(own.building) ? 'residential' : COMMERCIAL.has(own.building) ? 'commercial' : null
      const towns = (this.towns[i] = townsOf([d.city, d.borough, d.neighborhood, d.county, own?.city].map((t) => t ?? '').join('\t')))
      if (!street) return
      if (d.layer === 'place') {
        if (d.number) this.firms.add(`${numberKey(d.number)}|${street}`)
        return
      }
      const pc = d.postalCode && d.countryCode ? postcodeKey(d.countryCode, d.postalCode) : null
      for (const t of towns) {
        this.streetIn(`town:${t}`, street)
        first(this.streetAt, `${street}|town:${t}`, i)
        if (pc) first(this.streetAt, `${street}|pc:${pc}|town:${t}`, i)
      }
      if (pc) {
        this.streetIn(`pc:${pc}`, street)
        first(this.streetAt, `${street}|pc:${pc}`, i)
      }
      if (d.layer !== 'address' || !d.number) return
      const number = numberKey(d.number)
      const key = `${number}|${street}|${d.city}|${d.postalCode}`
      let r = records.get(key)
      if (r === undefined) {
        records.set(key, (r = this.recordDoc.push(i) - 1))
        this.recordTowns.push(towns)
        this.recordUnits.push(null)
        if (d.postalCode) push(this.byNumberAt, `${number}|pc:${postcodeKey(d.countryCode ?? '', d.postalCode)}`, r)
        for (const t of towns) push(this.byNumberAt, `${number}|town:${t}`, r)
      } else {
        const more = towns.filter((t) => !this.recordTowns[r!].includes(t))
        if (more.length) {
          this.recordTowns[r] = [...this.recordTowns[r], ...more]
          for (const t of more) push(this.byNumberAt, `${number}|town:${t}`, r)
        }
      }
      if (d.unit) (this.recordUnits[r] ??= new Map()).set(unitKey(d.unit), d.unit)
      if (pc) {
        const towns = this.postcodeTowns.get(pc) ?? new Set()
        for (const t of this.towns[i]) towns.add(t)
        this.postcodeTowns.set(pc, towns)
      }
    })
  }

  private streetIn(area: string, street: string): void {
    const set = this.streetsIn.get(area)
    if (set) set.add(street)
    else this.streetsIn.set(area, new Set([street]))
  }

  close(): void {}
}

const RESIDENTIAL = new Set(['house', 'residential', 'apartments', 'detached', 'semidetached_house', 'terrace', 'bungalow', 'dormitory',
  'cabin', 'farm', 'houseboat', 'static_caravan', 'duplex', 'townhouse', 'row_house'])
const COMMERCIAL = new Set(['commercial', 'retail', 'office', 'industrial', 'warehouse', 'hotel', 'supermarket', 'kiosk', 'store', 'shop',
  'manufacture', 'service', 'mall', 'department_store', 'bank', 'restaurant'])

const first = (m: Map<string, number>, key: string, i: number) => {
  if (!m.has(key)) m.set(key, i)
}

const push = (m: Map<string, number[]>, key: string, i: number) => {
  const list = m.get(key)
  if (list) list.push(i)
  else m.set(key, [i])
}

/** The region's validation index, built from its geocoder's docs on first use and dropped with the region. */
export function validationIndex(map: MapData, region: string): ValidationIndex | undefined {
  const g = geocoder(map, region)
  if (!g) return undefined
  return map.engine(region, 'validation', ({db}) => {
    // maps imported before addresses kept `building` have no such column
    const building = (db.prepare('SELECT 1 FROM pragma_table_info(\'addresses\') WHERE name = \'building\'').get() ? 'building' : 'NULL')
    const rows = db.prepare(`SELECT id, city, ${building} FROM addresses WHERE city IS NOT NULL OR ${building} IS NOT NULL`).raw().all() as [number, string | null, string | null][]
    return new ValidationIndex(readDocs(db), new Map(rows.map(([id, city, b]) => [id, {city, building: b}])))
  })
}
