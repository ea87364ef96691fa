import KDBush from 'kdbush'
import type {MapStage} from '../osm/stage.js'
import {DOCS_SCHEMA, INSERT_DOCS, collectDocs, docRow, readDocs} from './docs.js'
import {NameBook, writeNames} from './names.js'
import {VARIANT, buildTokenIndex, docTokens, primaryTokens, tokenLookup} from './tokens.js'

/** The geocoder index: blob `geocoding.bin`, kind version 1, beside the `geocoding_docs` table. */
export const GEOCODING_BLOB = 'geocoding'
export const GEOCODING_BLOB_VERSION = 1

/**
 * Builds `geocoding_names` (the other names of streets and areas by name, for `lang`), `geocoding_docs` (every address, street, place, locality, postcode and admin area with its
 * full admin parts) and `geocoding.bin`: sections `text`/`textStart` (sorted tokens), `postStart`/
 * `postings` (doc indexes per token), `primStart`/`prim` (per doc, the token ids
 * of its own name, street and number, then of each other name, VARIANT between: what a query must cover to be about this doc), `kdbush` (a kdbush over the docs' lon/lat, item = doc index).
 */
export const geocodingStage: MapStage = {
  name: 'geocoding',
  // 2: extraction gained interpolation ends, place names by language, ISO 3166-2 codes
  // 3: other names of streets, areas and place labels (`geocoding_names`, docs' names, primary variants)
  // 4: admin areas at their label / admin_centre node or on land (osm/area-point.ts), postcodes at an address of theirs
  // 5: a place node names only points of its own country (and a quarter only points of its own city)
  // 6: a street crossing a border is one doc per country (osm/streets.ts)
  version: 6,
  async build(ctx) {
    const {db} = ctx
    db.exec(DOCS_SCHEMA)
    // the admin lookup reads the place labels at every engine load: without this a scan of every map feature
    db.exec("CREATE INDEX layer_features_place_label ON layer_features(layer) WHERE layer = 'place_label'")
    const insert = db.prepare(INSERT_DOCS)
    const lists: string[][] = []
    const primary: string[][][] = []
    const book = new NameBook(db)
    writeNames(db, book)
    let batch: unknown[][] = []
    for (const doc of collectDocs(db, book)) {
      batch.push(docRow(doc))
      lists.push(docTokens(doc))
      primary.push(primaryTokens(doc))
      if (batch.length === 4096) {
        insert.run(JSON.stringify(batch))
        batch = []
        await ctx.progress(lists.length, lists.length + 1)
      }
    }
    if (batch.length) insert.run(JSON.stringify(batch))
    const index = buildTokenIndex(lists)
    const prim = primaryIndex(tokenLookup(index), primary)
    const points = new KDBush(lists.length, 64, Float64Array)
    for (const row of db.prepare('SELECT lon, lat FROM geocoding_docs ORDER BY id').raw().iterate() as Iterable<[number, number]>) points.add(row[0], row[1])
    points.finish()
    ctx.writeBlob(GEOCODING_BLOB, {...index, ...prim, kdbush: points.data}, GEOCODING_BLOB_VERSION)
  },
  verify(ctx) {
    const blob = ctx.readBlob(GEOCODING_BLOB, GEOCODING_BLOB_VERSION)
    const n = readDocs(ctx.db).length
    const items = KDBush.from(blob.section('kdbush').slice().buffer).numItems
    const postings = blob.array('postings', Uint32Array)
    if (items !== n) throw new Error(`${blob.file}: ${items} points for ${n} docs`)
    for (let i = 0; i < postings.length; i++) if (postings[i] >= n) throw new Error(`${blob.file}: posting ${postings[i]} beyond ${n} docs`)
  },
}

/** Per doc, the token ids of its primary variants, VARIANT between two. */
export function primaryIndex(lookup: (t: string) => number, primary: string[][][]): {primStart: Uint32Array; prim: Uint32Array} {
  const primStart = new Uint32Array(primary.length + 1)
  const out: number[] = []
  primary.forEach((variants, i) => {
    variants.forEach((list, v) => {
      if (v) out.push(VARIANT)
      for (const t of list) out.push(lookup(t))
    })
    primStart[i + 1] = out.length
  })
  return {primStart, prim: Uint32Array.from(out)}
}
