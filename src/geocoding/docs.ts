import type Database from 'better-sqlite3'
import KDBush from 'kdbush'
import {AdminLookup, type AdminParts} from './admin.js'
import {type NameBook, type Names, keptNames, nameValues} from './names.js'
import {countryName} from './regions.js'

/** What the geocoder finds: one row of `geocoding_docs` per address, street, place, locality, postcode or admin area. */
export type DocLayer = 'address' | 'street' | 'place' | 'postalCode' | 'locality' | 'neighborhood' | 'county' | 'state' | 'country'
export const DOC_LAYERS: readonly DocLayer[] = ['address', 'street', 'place', 'postalCode', 'locality', 'neighborhood', 'county', 'state', 'country']

export interface Doc extends AdminParts {
  layer: DocLayer
  /** place or area name; the street for streets */
  name: string | null
  number: string | null
  unit: string | null
  street: string | null
  lon: number
  lat: number
  /** 0..1, ranks equal text matches: countries over towns over hamlets, streets by length */
  importance: number
  /** places: the category, localities: the place class */
  category: string | null
  /** places.id, streets.id, addresses.id, admin_areas.id of the row it came from */
  ref: number | null
  /** its own other names (places, streets, areas): `name:<lang>` (answered for `lang`) and `alt_name`, `old_name`... (searched only) */
  names?: Names | null
  /** while the index is built (not stored): the other names of an address's street and of a doc's city, searched with it */
  streetAka?: string[]
  cityAka?: string[]
}

export const DOCS_SCHEMA = `
CREATE TABLE geocoding_docs (
  id INTEGER PRIMARY KEY, layer TEXT NOT NULL, name TEXT, number TEXT, unit TEXT, street TEXT,
  neighborhood TEXT, borough TEXT, city TEXT, county TEXT, state TEXT, state_code TEXT, postcode TEXT,
  country TEXT, country_code TEXT, lon REAL NOT NULL, lat REAL NOT NULL, importance REAL NOT NULL, category TEXT, ref INTEGER, names TEXT
);`

const COLUMNS = 'layer, name, number, unit, street, neighborhood, borough, city, county, state, state_code, postcode, country, country_code, lon, lat, importance, category, ref, names'

export function docRow(d: Doc): unknown[] {
  return [d.layer, d.name, d.number, d.unit, d.street, d.neighborhood, d.borough, d.city, d.county, d.state, d.stateCode, d.postalCode,
    d.country, d.countryCode, d.lon, d.lat, d.importance, d.category, d.ref, d.names ? JSON.stringify(d.names) : null]
}

export function readDocs(db: Database.Database): Doc[] {
  return (db.prepare(`SELECT ${columnsOf(db)} FROM geocoding_docs ORDER BY id`).raw().all() as unknown[][]).map(rowDoc)
}

// regions imported before docs kept localised names have no such column
const columnsOf = (db: Database.Database) => db.prepare("SELECT 1 FROM pragma_table_info('geocoding_docs') WHERE name = 'names'").get() ? COLUMNS : COLUMNS.replace(', names', ', NULL')

const rowDoc = (r: unknown[]): Doc => ({
  layer: r[0] as DocLayer, name: r[1] as string | null, number: r[2] as string | null, unit: r[3] as string | null, street: r[4] as string | null,
  neighborhood: r[5] as string | null, borough: r[6] as string | null, city: r[7] as string | null, county: r[8] as string | null,
  state: r[9] as string | null, stateCode: r[10] as string | null, postalCode: r[11] as string | null, country: r[12] as string | null,
  countryCode: r[13] as string | null, lon: r[14] as number, lat: r[15] as number, importance: r[16] as number, category: r[17] as string | null,
  ref: r[18] as number | null,
  names: r[19] ? (JSON.parse(r[19] as string) as Record<string, string>) : null,
})

/** What the geocoder keeps of every doc in flat arrays; whole docs are read one by one when an answer needs them. */
export interface DocSource {
  count: number
  /** per doc in order: [layer, countryCode, importance, lon, lat, ref, street, city] */
  rows(): Iterable<[DocLayer, string | null, number, number, number, number | null, string | null, string | null]>
  /** the doc at index i */
  read(i: number): Doc
}

/** `geocoding_docs` as a DocSource: one pass over a few columns, then whole rows by id. */
export function docSource(db: Database.Database): DocSource {
  const ids = Uint32Array.from(db.prepare('SELECT id FROM geocoding_docs ORDER BY id').pluck().all() as number[])
  const byId = db.prepare(`SELECT ${columnsOf(db)} FROM geocoding_docs WHERE id = ?`).raw()
  return {
    count: ids.length,
    rows: () => db.prepare('SELECT layer, country_code, importance, lon, lat, ref, street, city FROM geocoding_docs ORDER BY id').raw().iterate() as Iterable<[DocLayer, string | null, number, number, number, number | null, string | null, string | null]>,
    read: (i) => rowDoc(byId.get(ids[i]) as unknown[]),
  }
}

/** Docs already in memory (regions imported before the geocoding stage) as a DocSource. */
export function memoryDocs(docs: Doc[]): DocSource {
  return {
    count: docs.length,
    rows: () => docs.map((d) => [d.layer, d.countryCode, d.importance, d.lon, d.lat, d.ref, d.street, d.city]),
    read: (i) => docs[i],
  }
}

/** Inserts a JSON array of `docRow`s in one statement (one implicit transaction per batch, on the build file). */
export const INSERT_DOCS = `INSERT INTO geocoding_docs (${COLUMNS}) SELECT ${COLUMNS.split(',').map((_, i) => `value->>${i}`).join(', ')} FROM json_each(?)`

const LOCALITY_IMPORTANCE: Record<string, number> = {city: 0.8, town: 0.6, village: 0.45, hamlet: 0.3, suburb: 0.4, quarter: 0.3, neighbourhood: 0.25}
const AREA_LAYER: Record<string, DocLayer> = {country: 'country', state: 'state', county: 'county', city: 'locality', borough: 'locality', neighborhood: 'neighborhood'}
const AREA_IMPORTANCE: Record<string, number> = {country: 1, state: 0.9, county: 0.7, city: 0.8, borough: 0.6, neighborhood: 0.35}

const majority = (counts: Map<string, Map<string, number>>, key: string | null) => {
  const m = key ? counts.get(key) : undefined
  if (!m) return null
  let best: string | null = null, n = 0
  for (const [v, c] of m) if (c > n) [best, n] = [v, c]
  return best
}
const bump = (counts: Map<string, Map<string, number>>, key: string, value: string) => {
  let m = counts.get(key)
  if (!m) counts.set(key, (m = new Map()))
  m.set(value, (m.get(value) ?? 0) + 1)
}

/**
 * Every searchable thing of a region with its full admin parts. Addresses get city, county, state,
 * country from the polygons containing them, else their own `addr:*` tags, else the nearest
 * `place=*` node of the right rank; a city or state still missing is the most common one among
 * addresses of the same postcode (Manhattan tags `addr:city` on a quarter of its addresses).
 */
export function* collectDocs(db: Database.Database, book: NameBook, progress: (done: number, total: number) => void = () => {}): Generator<Doc> {
  const admin = new AdminLookup(db)
  // the other names of a street or town, by its name (an address names them by text)
  const aka = memo((key: string) => nameValues(book.named(key.startsWith('s') ? 'street' : 'city', key.slice(1))))
  const addresses = db.prepare('SELECT id, housenumber, street, place, unit, city, postcode, state, country, lon, lat FROM addresses ORDER BY id').all() as
    {id: number; housenumber: string; street: string | null; place: string | null; unit: string | null; city: string | null; postcode: string | null; state: string | null; country: string | null; lon: number; lat: number}[]
  const parts: AdminParts[] = []
  const cities = new Map<string, Map<string, number>>(), states = new Map<string, Map<string, number>>()
  // per postcode: the mean of its addresses, then the address nearest that mean (a mean can lie outside a curved postcode)
  const postcodes = new Map<string, {lon: number; lat: number; n: number; parts: AdminParts; at: [number, number]; d: number}>()
  for (let i = 0; i < addresses.length; i++) {
    if ((i & 1023) === 0) progress(i, addresses.length)
    const a = addresses[i]
    const p = admin.at(a.lon, a.lat, {city: a.city, state: a.state, postcode: a.postcode, country: a.country})
    parts.push(p)
    const key = p.postalCode && `${p.countryCode}:${p.postalCode}`
    if (!key) continue
    if (p.city) bump(cities, key, p.city)
    if (p.state) bump(states, key, `${p.state}\t${p.stateCode ?? ''}`)
    const pc = postcodes.get(key)
    if (pc) {
      pc.lon += a.lon
      pc.lat += a.lat
      pc.n++
    } else postcodes.set(key, {lon: a.lon, lat: a.lat, n: 1, parts: p, at: [a.lon, a.lat], d: Infinity})
  }
  for (const pc of postcodes.values()) [pc.lon, pc.lat] = [pc.lon / pc.n, pc.lat / pc.n]
  for (let i = 0; i < addresses.length; i++) {
    const a = addresses[i], p = parts[i]
    const key = p.postalCode && `${p.countryCode}:${p.postalCode}`
    if (key) {
      p.city ??= majority(cities, key)
      if (!p.state) {
        const s = majority(states, key)
        if (s) [p.state, p.stateCode] = [s.split('\t')[0], s.split('\t')[1] || null]
      }
      const pc = postcodes.get(key)!
      const d = ((a.lon - pc.lon) * Math.cos((pc.lat * Math.PI) / 180)) ** 2 + (a.lat - pc.lat) ** 2
      if (d < pc.d) [pc.at, pc.d] = [[a.lon, a.lat], d]
    }
    p.country ??= countryName(p.countryCode)
    const street = a.street ?? a.place
    yield {...p, layer: 'address', name: null, number: a.housenumber, unit: a.unit, street, lon: a.lon, lat: a.lat, importance: 0.5, category: null, ref: a.id,
      streetAka: street ? aka(`s${street}`) : undefined, cityAka: p.city ? aka(`a${p.city}`) : undefined}
  }
  const inherit = nearestAddressParts(addresses, parts)
  for (const [key, pc] of postcodes) {
    const [lon, lat] = pc.at
    // the town most of its addresses are in, not its first address's
    yield {...pc.parts, city: majority(cities, key) ?? pc.parts.city, neighborhood: null, layer: 'postalCode', name: pc.parts.postalCode, number: null, unit: null, street: null, lon, lat, importance: 0.6, category: null, ref: null}
  }

  // Streets get their city from their label point; the postcode only when one address postcode dominates nearby is not worth the cost.
  for (const s of db.prepare('SELECT id, name, length_m, lon, lat FROM streets').all() as Array<{id: number; name: string; length_m: number; lon: number; lat: number}>) {
    const p = inherit(admin.at(s.lon, s.lat), s.lon, s.lat)
    p.country ??= countryName(p.countryCode)
    yield {...p, postalCode: null, layer: 'street', name: s.name, number: null, unit: null, street: s.name, lon: s.lon, lat: s.lat,
      importance: Math.min(0.5, 0.2 + Math.log10(1 + s.length_m) / 12), category: null, ref: s.id, names: book.streets.get(s.id), cityAka: p.city ? aka(`a${p.city}`) : undefined}
  }
  for (const pl of db.prepare('SELECT id, name, category, housenumber, street, city, postcode, lon, lat, tags FROM places').all() as Array<{id: number; name: string; category: string; housenumber: string | null; street: string | null; city: string | null; postcode: string | null; lon: number; lat: number; tags: string}>) {
    const p = inherit(admin.at(pl.lon, pl.lat, {city: pl.city, postcode: pl.postcode}), pl.lon, pl.lat)
    p.country ??= countryName(p.countryCode)
    yield {...p, layer: 'place', name: pl.name, number: pl.housenumber, unit: null, street: pl.street, lon: pl.lon, lat: pl.lat, importance: 0.45, category: pl.category, ref: pl.id,
      names: keptNames(pl.tags, pl.name), cityAka: p.city ? aka(`a${p.city}`) : undefined}
  }
  const areaNames = new Set<string>()
  for (const a of db.prepare("SELECT id, kind, name, label_lon, label_lat FROM admin_areas WHERE name IS NOT NULL AND kind != 'postal_code' AND kind != 'other'").all() as Array<{id: number; kind: string; name: string; label_lon: number; label_lat: number}>) {
    const layer = AREA_LAYER[a.kind]
    if (!layer) continue
    const p = admin.at(a.label_lon, a.label_lat)
    p.country ??= countryName(p.countryCode)
    areaNames.add(a.name.toLowerCase())
    // an area is not inside itself: only parts above it
    const above = trimBelow(p, a.kind)
    yield {...above, layer, name: a.name, number: null, unit: null, street: null, lon: a.label_lon, lat: a.label_lat, importance: AREA_IMPORTANCE[a.kind] ?? 0.5, category: a.kind, ref: a.id,
      names: book.ownArea(a.kind, a.name, book.areas.get(a.id))}
  }
  for (const n of admin.placeNodes()) {
    if (areaNames.has(n.name.toLowerCase())) continue // the polygon already stands for it
    const p = admin.at(n.lon, n.lat)
    p.country ??= countryName(p.countryCode)
    const locality = n.cls === 'city' || n.cls === 'town' || n.cls === 'village' || n.cls === 'hamlet'
    const above = trimBelow(p, locality ? 'city' : 'neighborhood')
    yield {...above, layer: locality ? 'locality' : 'neighborhood', name: n.name, number: null, unit: null, street: null, lon: n.lon, lat: n.lat,
      importance: LOCALITY_IMPORTANCE[n.cls] ?? 0.3, category: n.cls, ref: null, names: book.ownArea(n.cls, n.name, book.labels.get(n.feature))}
  }
}

/** `fn` computed once per distinct argument (docs repeat the same streets and towns). */
export function memo<T>(fn: (s: string) => T): (s: string) => T {
  const seen = new Map<string, T>()
  return (s) => {
    let v = seen.get(s)
    if (v === undefined) seen.set(s, (v = fn(s)))
    return v
  }
}

const RANK = ['country', 'state', 'county', 'city', 'borough', 'neighborhood']
function trimBelow(p: AdminParts, kind: string): AdminParts {
  const r = RANK.indexOf(kind)
  const out = {...p, postalCode: null}
  if (r <= 0) out.state = out.stateCode = null
  if (r <= 1) out.county = null
  if (r <= 3) out.city = out.borough = null
  if (r <= 4) out.neighborhood = null
  if (kind === 'city') out.city = null
  return out
}

/**
 * Fills a city, state or postcode that polygons, tags and place nodes left empty from the nearest
 * address within 300 m (streets and places in extracts without city polygons, e.g. Manhattan).
 */
function nearestAddressParts(addresses: {lon: number; lat: number}[], parts: AdminParts[]): (p: AdminParts, lon: number, lat: number) => AdminParts {
  if (!addresses.length) return (p) => p
  const index = new KDBush(addresses.length, 64, Float64Array)
  for (const a of addresses) index.add(a.lon, a.lat)
  index.finish()
  const dLat = 300 / 111_320
  return (p, lon, lat) => {
    if (p.city && p.state && p.postalCode) return p
    const dLon = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180))
    let best = -1, bestD = Infinity
    for (const i of index.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      const d = (addresses[i].lon - lon) ** 2 / dLon ** 2 + (addresses[i].lat - lat) ** 2 / dLat ** 2
      if (d < bestD && d <= 1) [best, bestD] = [i, d]
    }
    if (best < 0) return p
    const q = parts[best]
    if (q.countryCode !== p.countryCode) return p
    p.city ??= q.city
    if (!p.state) [p.state, p.stateCode] = [q.state, q.stateCode]
    p.postalCode ??= q.postalCode
    return p
  }
}
