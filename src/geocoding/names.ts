import type Database from 'better-sqlite3'
import {OTHER_NAME_KEYS} from '../osm/names.js'
import type {Doc} from './docs.js'

/** The languages of `lang` (the spec's ten). */
export const LANGS = ['ar', 'de', 'en', 'es', 'fr', 'ja', 'ko', 'pt', 'ru', 'zh'] as const
export type Lang = (typeof LANGS)[number]

/** A thing's other names: `name:<lang>` in the API's languages under the language, `alt_name`, `old_name`... under the tag. */
export type Names = Record<string, string>

const KEPT = new Set<string>([...LANGS, ...OTHER_NAME_KEYS])

/** The names kept of a `names` row (language keys) or of a place's tags (`name:<lang>` keys), those equal to `name` left out; null when none. */
export function keptNames(json: string | null | undefined, name: string | null): Names | null {
  if (!json) return null
  let out: Names | null = null
  for (const [k, v] of Object.entries(JSON.parse(json) as Record<string, string>)) {
    const key = k.startsWith('name:') ? k.slice(5) : k
    if (KEPT.has(key) && v && v !== name) (out ??= {})[key] = v
  }
  return out
}

/** Every name of `names` once (`alt_name=A;B` is two names). */
export function nameValues(names: Names | null | undefined): string[] {
  if (!names) return []
  const out = new Set<string>()
  for (const v of Object.values(names)) for (const part of v.split(';')) if (part.trim()) out.add(part.trim())
  return [...out]
}

const hasTable = (db: Database.Database, name: string) => !!db.prepare('SELECT 1 FROM sqlite_master WHERE name = ?').get(name)

/** The address part an admin area or place label names (admin_areas.kind, or the label's `place=*` class). */
export type Part = 'country' | 'state' | 'county' | 'city' | 'borough' | 'neighborhood'
const PART_OF: Record<string, Part> = {
  country: 'country', state: 'state', province: 'state', county: 'county', city: 'city', borough: 'borough', neighborhood: 'neighborhood',
  town: 'city', village: 'city', hamlet: 'city', suburb: 'neighborhood', quarter: 'neighborhood', neighbourhood: 'neighborhood',
}

/**
 * The other names of a region's streets, admin areas and place labels (the import's `names` table),
 * by row and by name: an address names its street and towns by text, so their other names are
 * found by that text, for the part it names ("New York" the city and the state are told apart;
 * when two streets of one name disagree, the first street's names count).
 */
export class NameBook {
  readonly streets = new Map<number, Names>()
  readonly areas = new Map<number, Names>()
  readonly labels = new Map<number, Names>()
  /** `street\t<name>` and `<part>\t<name>` (admin areas and place labels) → names */
  readonly byName = new Map<string, Names>()

  constructor(db: Database.Database) {
    // regions extracted before streets and areas kept their other names have none of these rows
    if (!hasTable(db, 'names')) return
    const read = (kind: string, sql: string, into: Map<number, Names>) => {
      for (const [ref, json, name, of] of db.prepare(sql).raw().iterate(kind) as Iterable<[number, string, string, string]>) {
        const names = keptNames(json, name)
        if (!names) continue
        into.set(ref, names)
        const part = kind === 'street' ? 'street' : PART_OF[of]
        if (!part) continue
        const key = `${part}\t${name}`
        const known = this.byName.get(key)
        if (!known) this.byName.set(key, {...names})
        else for (const k in names) known[k] ??= names[k]
      }
    }
    read('street', "SELECT n.ref, n.names, s.name, 'street' FROM names n JOIN streets s ON s.id = n.ref WHERE n.kind = ? ORDER BY n.ref", this.streets)
    read('area', 'SELECT n.ref, n.names, a.name, a.kind FROM names n JOIN admin_areas a ON a.id = n.ref WHERE n.kind = ? AND a.name IS NOT NULL ORDER BY n.ref', this.areas)
    read('label', "SELECT n.ref, n.names, f.name, f.class FROM names n JOIN layer_features f ON f.feature = n.ref WHERE n.kind = ? AND f.layer = 'place_label' ORDER BY n.ref", this.labels)
  }

  /** The other names of the street, or of the area of that part, named `name`. */
  named(part: Part | 'street', name: string | null): Names | null {
    return (name && this.byName.get(`${part}\t${name}`)) || null
  }

  /** An area's or place label's own names, with those of the same-named areas and labels of its part it lacks (a town's polygon and its label node). */
  ownArea(of: string, name: string, own: Names | undefined): Names | null {
    const named = PART_OF[of] ? this.named(PART_OF[of], name) : null
    return named || own ? {...named, ...own} : null
  }
}

/** `geocoding_names`: NameBook.byName as the engine reads it, one row per kind and name. */
export const NAMES_SCHEMA = 'CREATE TABLE geocoding_names (kind TEXT NOT NULL, name TEXT NOT NULL, names TEXT NOT NULL, PRIMARY KEY (kind, name)) WITHOUT ROWID'

export function writeNames(db: Database.Database, book: NameBook): void {
  db.exec(NAMES_SCHEMA)
  const insert = db.prepare('INSERT INTO geocoding_names VALUES (?, ?, ?)')
  for (const [key, names] of book.byName) {
    const tab = key.indexOf('\t')
    insert.run(key.slice(0, tab), key.slice(tab + 1), JSON.stringify(names))
  }
}

const displayNames = new Map<string, Intl.DisplayNames | null>()
function countryIn(lang: string, code: string | null): string | null {
  if (!code) return null
  let names = displayNames.get(lang)
  if (names === undefined) {
    try {
      names = new Intl.DisplayNames([lang], {type: 'region'})
    } catch {
      names = null // ICU without that language
    }
    displayNames.set(lang, names)
  }
  try {
    return names?.of(code) ?? null
  } catch {
    return null
  }
}

/**
 * A doc in another language, where the data has it: its own name (`name:<lang>`), its street, its
 * neighbourhood, borough, city, county and state by the names of the street and areas of that name,
 * the country from ICU. Anything without a name in that language keeps its own; other names
 * (`alt_name`...) are only searched, never answered.
 */
export class Localizer {
  private readonly byName: Database.Statement | null
  private readonly seen = new Map<string, Names | null>()

  /** without a region (`db` undefined) only the country is named in another language */
  constructor(db?: Database.Database) {
    this.byName = db && hasTable(db, 'geocoding_names') ? db.prepare('SELECT names FROM geocoding_names WHERE kind = ? AND name = ?').pluck() : null
  }

  private named(kind: Part | 'street', name: string | null, lang: string): string | undefined {
    if (!name || !this.byName) return undefined
    const key = `${kind}\t${name}`
    let names = this.seen.get(key)
    if (names === undefined) {
      const json = this.byName.get(kind, name) as string | undefined
      names = json ? (JSON.parse(json) as Names) : null
      if (this.seen.size > 100_000) this.seen.clear()
      this.seen.set(key, names)
    }
    return names?.[lang]
  }

  localize(doc: Doc, lang: string): Doc {
    const own = doc.names?.[lang]
    const area = (part: Part, name: string | null) => (name && this.named(part, name, lang)) || name
    const out: Doc = {
      ...doc,
      name: own ?? doc.name,
      street: (doc.layer === 'street' ? own : this.named('street', doc.street, lang)) ?? doc.street,
      neighborhood: area('neighborhood', doc.neighborhood),
      borough: area('borough', doc.borough),
      city: area('city', doc.city),
      county: area('county', doc.county),
      state: area('state', doc.state),
      country: countryIn(lang, doc.countryCode) ?? area('country', doc.country),
    }
    if (doc.layer === 'country') out.name = out.country = countryIn(lang, doc.countryCode) ?? own ?? doc.name
    return out
  }
}
