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

/**
 * The other names of a region's streets, admin areas and place labels (the import's `names` table),
 * by row and by name: an address names its street and towns by text, so their other names are
 * found by that text (when two streets of one name disagree, the first street's names count).
 */
export class NameBook {
  readonly streets = new Map<number, Names>()
  readonly areas = new Map<number, Names>()
  readonly labels = new Map<number, Names>()
  /** `street\t<name>` and `area\t<name>` (admin areas and place labels) → names */
  readonly byName = new Map<string, Names>()

  constructor(db: Database.Database) {
    // regions extracted before streets and areas kept their other names have none of these rows
    if (!hasTable(db, 'names')) return
    const read = (kind: string, sql: string, into: Map<number, Names>, as: string) => {
      for (const [ref, json, name] of db.prepare(sql).raw().iterate(kind) as Iterable<[number, string, string]>) {
        const names = keptNames(json, name)
        if (!names) continue
        into.set(ref, names)
        const key = `${as}\t${name}`
        const known = this.byName.get(key)
        if (!known) this.byName.set(key, names)
        else for (const k in names) known[k] ??= names[k]
      }
    }
    read('street', 'SELECT n.ref, n.names, s.name FROM names n JOIN streets s ON s.id = n.ref WHERE n.kind = ? ORDER BY n.ref', this.streets, 'street')
    read('area', 'SELECT n.ref, n.names, a.name FROM names n JOIN admin_areas a ON a.id = n.ref WHERE n.kind = ? AND a.name IS NOT NULL ORDER BY n.ref', this.areas, 'area')
    read('label', 'SELECT n.ref, n.names, f.name FROM names n JOIN layer_features f ON f.feature = n.ref WHERE n.kind = ? AND f.layer = \'place_label\' ORDER BY n.ref', this.labels, 'area')
  }

  street(name: string | null): Names | null {
    return (name && this.byName.get(`street\t${name}`)) || null
  }

  area(name: string | null): Names | null {
    return (name && this.byName.get(`area\t${name}`)) || null
  }

  /** An area's or place label's own names, with those of the same-named areas and labels it lacks (a town's polygon and its label node). */
  ownArea(name: string, own: Names | undefined): Names | null {
    const named = this.area(name)
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

  private named(kind: 'street' | 'area', name: string | null, lang: string): string | undefined {
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
    const area = (name: string | null) => (name && this.named('area', name, lang)) || name
    const out: Doc = {
      ...doc,
      name: own ?? doc.name,
      street: (doc.layer === 'street' ? own : this.named('street', doc.street, lang)) ?? doc.street,
      neighborhood: area(doc.neighborhood),
      borough: area(doc.borough),
      city: area(doc.city),
      county: area(doc.county),
      state: area(doc.state),
      country: countryIn(lang, doc.countryCode) ?? area(doc.country),
    }
    if (doc.layer === 'country') out.name = out.country = countryIn(lang, doc.countryCode) ?? own ?? doc.name
    return out
  }
}
