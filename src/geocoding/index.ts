import type Database from 'better-sqlite3'
import KDBush from 'kdbush'
import {readBlob} from '../map/blob.js'
import type {Engine, MapData} from '../map/mapdata.js'
import {haversine} from '../osm/geom.js'
import {AdminLookup} from './admin.js'
import {DOC_LAYERS, type Doc, type DocLayer, type DocSource, collectDocs, docSource, memoryDocs} from './docs.js'
import {withinOneEdit} from './fuzzy.js'
import {InterpolationLines} from './interpolation.js'
import {Localizer, NameBook} from './names.js'
import {fold, isNumberLike, numberTokens, numberValue, tokens} from './normalize.js'
import {GEOCODING_BLOB, GEOCODING_BLOB_VERSION, primaryIndex} from './stage.js'
import {VARIANT, buildTokenIndex, decodeTokens, docTokens, findToken, lowerBound, primaryTokens} from './tokens.js'

export interface SearchOptions {
  /** the last token is a prefix (autocomplete) */
  prefix?: boolean
  /** answer names in this language where the data has them */
  lang?: string
  layers: ReadonlySet<DocLayer>
  countries?: ReadonlySet<string>
  near?: [number, number]
  limit: number
}

export interface Hit {
  doc: Doc
  score: number
  /** every query word matched the doc (a hit that leaves a word unmatched ranks below every hit that does not) */
  complete?: boolean
  confidence: 'exact' | 'interpolated' | 'fallback'
  lon: number
  lat: number
  /** the house number asked for, when the result was interpolated on its street */
  number?: string
}

const MAX_PREFIX_EXPANSIONS = 256
const NO_TOKEN = 0xffff
/** `seen[2d + 1]` once query token k scored doc d too */
const scoredBy = (s: number, k: number) => ((((s >>> 16) + 1) << 16) | k)
/** In-engine ordering: a hit matching every query word ranks above any that does not (scores stay under 2). */
const COMPLETE = 10
const ADDRESS = DOC_LAYERS.indexOf('address')
/** Words held by more docs than this are only checked on docs rarer words found (their forward index). */
const COMMON_DF = 2000

/**
 * One region's geocoder, loaded once per region generation from `geocoding.bin` and
 * `geocoding_docs`: sorted tokens (binary search, prefix ranges, one-edit neighbours within the
 * first letter's range), postings per token, and per doc the tokens that make it what it is.
 * Scoring: each query token adds the IDF of its best expansion (exact 1, prefix 0.9, one edit
 * 0.75); a doc whose own tokens the query covers ranks over docs that only lie in a matching place.
 */
export class Geocoder implements Engine {
  private readonly n: number
  private readonly scores: Float64Array
  /**
   * per doc, side by side (one cache line per posting): [2d] the query that last reached it,
   * [2d + 1] the last query token (index) that scored it in the low 16 bits (NO_TOKEN: none yet),
   * how many query tokens scored it above them
   */
  private readonly seen: Int32Array
  private readonly mark: Uint8Array
  /** per token: 1 + its position among the current word's expansions (0: not one) */
  private readonly order: Int32Array
  /** the forward index: tokens of doc d are fwd[fwdStart[d]..fwdStart[d+1]), built from the postings at load */
  private readonly fwdStart: Uint32Array
  private readonly fwd: Uint32Array
  private readonly tokensPerDoc: number
  /** per doc, flat for the ranking loop (Doc objects lie scattered on the heap): layer (DOC_LAYERS index), country (countryCodes index + 1, 0: none), importance, lon, lat */
  private readonly layerOf: Uint8Array
  private readonly countryOf: Uint16Array
  private readonly countryCodes: string[] = []
  private readonly importance: Float64Array
  private readonly lon: Float64Array
  private readonly lat: Float64Array
  /** docs the current query reached, in the order reached, then the near-best of them */
  private readonly touched: Uint32Array
  private query = 0
  /** address docs per street (folded street + city), for interpolation */
  private streets = new Map<string, number[]>()
  /** street docs by their `streets.id` */
  private streetDoc = new Map<number, number>()
  /** docs read so far (a region's docs are read when an answer needs them, not at load) */
  private readonly docs: (Doc | undefined)[]
  readonly admin: AdminLookup
  private readonly streetBoxes: Database.Statement
  private lines: InterpolationLines | undefined
  private localizer: Localizer | undefined
  private readonly localDocs = new Map<string, Map<number, Doc>>()
  closed = false

  constructor(
    private readonly source: DocSource,
    readonly tokens: string[],
    private readonly postStart: Uint32Array,
    private readonly postings: Uint32Array,
    private readonly primStart: Uint32Array,
    private readonly prim: Uint32Array,
    readonly points: KDBush,
    admin: AdminLookup,
    private readonly db: Database.Database,
  ) {
    this.streetBoxes = db.prepare('SELECT s.id, s.name, s.geometry FROM streets_rtree r JOIN streets s ON s.id = r.id WHERE r.min_lon <= ? AND r.max_lon >= ? AND r.min_lat <= ? AND r.max_lat >= ?')
    this.n = source.count
    this.docs = new Array(this.n)
    this.scores = new Float64Array(this.n)
    this.seen = new Int32Array(2 * this.n)
    this.mark = new Uint8Array(tokens.length)
    this.order = new Int32Array(tokens.length)
    this.fwdStart = new Uint32Array(this.n + 1)
    for (let p = 0; p < postings.length; p++) this.fwdStart[postings[p] + 1]++
    for (let d = 0; d < this.n; d++) this.fwdStart[d + 1] += this.fwdStart[d]
    this.fwd = new Uint32Array(postings.length)
    this.tokensPerDoc = postings.length / Math.max(1, this.n)
    const fill = this.fwdStart.slice(0, this.n)
    for (let t = 0; t < tokens.length; t++) for (let p = postStart[t]; p < postStart[t + 1]; p++) this.fwd[fill[postings[p]]++] = t
    this.admin = admin
    this.layerOf = new Uint8Array(this.n)
    this.countryOf = new Uint16Array(this.n)
    this.importance = new Float64Array(this.n)
    this.lon = new Float64Array(this.n)
    this.lat = new Float64Array(this.n)
    this.touched = new Uint32Array(this.n)
    const countries = new Map<string, number>()
    const folded = new Map<string, string>()
    let i = 0
    for (const [layer, countryCode, importance, lon, lat, ref, street, city] of source.rows()) {
      this.layerOf[i] = DOC_LAYERS.indexOf(layer)
      if (countryCode) {
        let c = countries.get(countryCode)
        if (c === undefined) countries.set(countryCode, (c = this.countryCodes.push(countryCode)))
        this.countryOf[i] = c
      }
      this.importance[i] = importance
      this.lon[i] = lon
      this.lat[i] = lat
      if (layer === 'street' && ref !== null) this.streetDoc.set(ref, i)
      if (layer === 'address' && street) {
        let f = folded.get(street)
        if (f === undefined) folded.set(street, (f = fold(street)))
        const key = `${f}|${city ?? ''}`
        const list = this.streets.get(key)
        if (list) list.push(i)
        else this.streets.set(key, [i])
      }
      i++
    }
  }

  /** The doc at index i. */
  doc(i: number): Doc {
    return (this.docs[i] ??= this.source.read(i))
  }

  /** A doc with its names in `lang` where the data has them (names.ts). */
  localize(doc: Doc, lang: string): Doc {
    return (this.localizer ??= new Localizer(this.db)).localize(doc, lang)
  }

  /** The doc at index i in `lang`, the same object each time while cached (answers' JSON text is cached per doc object). */
  private localDoc(i: number, lang: string): Doc {
    let docs = this.localDocs.get(lang)
    if (!docs) this.localDocs.set(lang, (docs = new Map()))
    let doc = docs.get(i)
    if (!doc) {
      if (docs.size >= 50_000) docs.clear()
      docs.set(i, (doc = this.localize(this.doc(i), lang)))
    }
    return doc
  }

  private df(t: number): number {
    return this.postStart[t + 1] - this.postStart[t]
  }

  private idf(t: number): number {
    return Math.log(1 + this.n / Math.max(1, this.df(t)))
  }

  /** Token ids a query token stands for, each with its weight. */
  private expand(q: string, prefix: boolean): [number, number][] {
    const out: [number, number][] = []
    const exact = findToken(this.tokens, q)
    if (exact >= 0) out.push([exact, 1])
    if (prefix) {
      const lo = lowerBound(this.tokens, q)
      for (let i = lo; i < this.tokens.length && this.tokens[i].startsWith(q) && out.length < MAX_PREFIX_EXPANSIONS; i++) if (i !== exact) out.push([i, 0.9])
    }
    if (out.length || q.length < 4 || /^\d/.test(q)) return out
    // one edit: neighbours share the first letter (or the second, for a dropped or swapped first letter)
    for (const first of new Set([q[0], q[1]])) {
      const lo = lowerBound(this.tokens, first)
      for (let i = lo; i < this.tokens.length && this.tokens[i][0] === first; i++) {
        const t = this.tokens[i]
        if (withinOneEdit(q, t) || (prefix && t.length > q.length && withinOneEdit(q, t.slice(0, q.length)))) out.push([i, prefix ? 0.7 : 0.75])
      }
    }
    return out
  }

  search(query: string[], opts: SearchOptions): Hit[] {
    if (!query.length || !this.n) return []
    const q = ++this.query
    const {scores, seen, mark, postings, postStart, touched} = this
    let reached = 0
    const marked: number[] = []
    let total = 0
    const numbers: string[] = []
    // rare words first: the common ones ("street", a city) then only score docs already found
    const words = query.map((t, k) => {
      if (isNumberLike(t)) numbers.push(t)
      const expansions = this.expand(t, !!opts.prefix && k === query.length - 1)
      let df = 0
      for (const [tok] of expansions) df += this.df(tok)
      return {k, expansions, df, prefix: !!opts.prefix && k === query.length - 1}
    }).sort((a, b) => a.df - b.df)
    for (const {k, expansions, df, prefix} of words) {
      let best = expansions.length ? 0 : Math.log(1 + this.n)
      // a common word, or the word being typed once the others found docs (it completes them, as Photon's prefix filter)
      const found = reached > 0 && (prefix ? reached * this.tokensPerDoc < df * 2 : df > COMMON_DF && df > reached * 8)
      if (found) {
        best = Math.max(best, this.scoreFound(expansions, reached, k, marked))
        total += best
        continue
      }
      for (const [tok, w] of expansions) {
        const gain = this.idf(tok) * w
        if (gain > best) best = gain
        if (!mark[tok]) {
          mark[tok] = 1
          marked.push(tok)
        }
        const start = postStart[tok], end = postStart[tok + 1]
        for (let p = start; p < end; p++) {
          const d = postings[p]
          if (seen[2 * d] !== q) {
            seen[2 * d] = q
            scores[d] = 0
            seen[2 * d + 1] = NO_TOKEN
            touched[reached++] = d
          }
          // expansions come best first: a doc counts each query token once
          const s = seen[2 * d + 1]
          if ((s & 0xffff) !== k) {
            seen[2 * d + 1] = scoredBy(s, k)
            scores[d] += gain
          }
        }
      }
      total += best
    }
    const numberToks = numbers.map((t) => findToken(this.tokens, t))
    let max = 0
    for (let i = 0; i < reached; i++) if (scores[touched[i]] > max) max = scores[touched[i]]
    // keep the near-best (in place, in the order reached); a common word (a city name) can touch every doc of a region
    let cut = max * 0.5
    let candidates = this.keep(reached, cut)
    while (candidates > 2000 && cut < max * 0.95) {
      cut = Math.min(cut + max * 0.1, max) // never above the best: docs all tied at the best (a country name in its own region) stay
      candidates = this.keep(candidates, cut)
    }
    let layerMask = 0
    for (const l of opts.layers) layerMask |= 1 << DOC_LAYERS.indexOf(l)
    const countryOk = opts.countries && this.countryCodes.map((c) => opts.countries!.has(c))
    const {layerOf, countryOf, importance, lon, lat, prim, primStart} = this
    const [nearLon, nearLat] = opts.near ?? [0, 0]
    // ranked by `rank`: the score, plus COMPLETE when every query word matched
    const ranked: {d: number; score: number; rank: number}[] = []
    for (let c = 0; c < candidates; c++) {
      const d = touched[c]
      if (!(layerMask & (1 << layerOf[d]))) continue
      if (countryOk && (!countryOf[d] || !countryOk[countryOf[d] - 1])) continue
      const full = ranked.length === opts.limit
      const tier = seen[2 * d + 1] >>> 16 === query.length ? COMPLETE : 0
      // the most coverage and proximity can add: a doc that cannot reach the last of the best is skipped unscored
      if (full && tier + scores[d] / total + 0.3 + 0.05 * importance[d] + 0.15 <= ranked[ranked.length - 1].rank) continue
      // the share of its own tokens the query holds, of its best-covered variant (a street's other names)
      let covered = 0, size = 0, coverage = 0
      const ps = primStart[d], pe = primStart[d + 1]
      for (let i = ps; i < pe; i++) {
        const t = prim[i]
        if (t === VARIANT) {
          if (size && covered / size > coverage) coverage = covered / size
          covered = size = 0
        } else {
          size++
          if (mark[t]) covered++
        }
      }
      if (size && covered / size > coverage) coverage = covered / size
      let score = scores[d] / total + 0.3 * coverage + 0.05 * importance[d]
      if (layerOf[d] === ADDRESS) {
        // an address's first own token is its number
        if (numbers.length && !numberToks.includes(prim[ps])) score -= 0.1
        else if (!numbers.length && !opts.prefix) score -= 0.05
      }
      if (opts.near) {
        if (full && tier + score + 0.15 <= ranked[ranked.length - 1].rank) continue
        score += 0.15 * Math.exp(-haversine(nearLon, nearLat, lon[d], lat[d]) / 20000)
      }
      const rank = tier + score
      // the best `limit`, in order (ties keep the earlier, as a stable sort would)
      if (full && rank <= ranked[ranked.length - 1].rank) continue
      let i = ranked.length
      while (i > 0 && ranked[i - 1].rank < rank) i--
      ranked.splice(i, 0, {d, score, rank})
      if (ranked.length > opts.limit) ranked.pop()
    }
    for (const t of marked) mark[t] = 0
    const top: Hit[] = ranked.map(({d, score, rank}) => {
      const doc = opts.lang ? this.localDoc(d, opts.lang) : this.doc(d)
      return {doc, score, complete: rank >= COMPLETE, confidence: doc.layer === 'address' || doc.layer === 'place' ? 'exact' : 'fallback', lon: doc.lon, lat: doc.lat}
    })
    // a house number on a known street that has no address point of its own: interpolate
    const first = top[0]
    // the house number asked for: a number that is not part of the street's name nor the postcode
    const numberToken = first && numbers.find((t) => !tokens(first.doc.street ?? '').includes(t) && t !== first.doc.postalCode)
    if (numberToken && opts.layers.has('address')) {
      const asked = first.doc.layer === 'street' || (first.doc.layer === 'address' && !numberTokens(first.doc.number!).includes(numberToken))
      if (asked) {
        const guess = this.interpolate(first.doc, numberToken)
        if (guess) top[0] = {...guess, doc: opts.lang ? this.localize(guess.doc, opts.lang) : guess.doc, score: first.score, complete: first.complete}
      }
    }
    return top
  }

  /** Keeps, in place and in order, the first `count` touched docs scoring at least `cut`; returns how many. */
  private keep(count: number, cut: number): number {
    const {touched, scores} = this
    let kept = 0
    for (let i = 0; i < count; i++) if (scores[touched[i]] >= cut) touched[kept++] = touched[i]
    return kept
  }

  /**
   * A common word (a street type, a city, a short prefix) scores only the docs rarer words found:
   * each found doc's own tokens (forward index) against the word's expansions, the first expansion
   * it holds counting, as in the postings walk. Returns the word's best gain.
   */
  private scoreFound(expansions: [number, number][], reached: number, k: number, marked: number[]): number {
    const {order, fwd, fwdStart, scores, seen, mark, touched} = this
    let best = 0
    for (let e = 0; e < expansions.length; e++) {
      const tok = expansions[e][0]
      best = Math.max(best, this.idf(tok) * expansions[e][1])
      if (!order[tok]) order[tok] = e + 1
      if (!mark[tok]) {
        mark[tok] = 1
        marked.push(tok)
      }
    }
    const lo = expansions[0][0], hi = lo + expansions.length
    if (expansions.every(([tok], e) => tok === lo + e)) {
      // an exact token and its prefix completions are one run of token ids, in expansion order, and a
      // doc's own tokens are sorted: its first token from `lo` on tells, with no lookup per token
      for (let i = 0; i < reached; i++) {
        const d = touched[i]
        let p = fwdStart[d]
        const end = fwdStart[d + 1]
        while (p < end && fwd[p] < lo) p++
        if (p === end || fwd[p] >= hi) continue
        seen[2 * d + 1] = scoredBy(seen[2 * d + 1], k)
        scores[d] += this.idf(fwd[p]) * expansions[fwd[p] - lo][1]
      }
    } else {
      for (let i = 0; i < reached; i++) {
        const d = touched[i]
        let first = 0
        for (let p = fwdStart[d], end = fwdStart[d + 1]; p < end; p++) {
          const r = order[fwd[p]]
          if (r && (!first || r < first)) first = r
        }
        if (!first) continue
        seen[2 * d + 1] = scoredBy(seen[2 * d + 1], k)
        const [tok, w] = expansions[first - 1]
        scores[d] += this.idf(tok) * w
      }
    }
    for (const [tok] of expansions) order[tok] = 0
    return best
  }

  /**
   * The point of `number` on the street of `doc`: between the two nearest known numbers of the same
   * parity, else on an `addr:interpolation` line of that street whose end numbers enclose it.
   */
  private interpolate(doc: Doc, number: string): Hit | null {
    const want = numberValue(number)
    if (!Number.isFinite(want)) return null
    const between = this.between(doc, number, want)
    if (between || !doc.street) return between
    const at = (this.lines ??= new InterpolationLines(this.db)).locate(doc.street, want, [doc.lon, doc.lat])
    if (!at) return null
    const [lon, lat] = at
    return {doc: {...doc, layer: 'address', name: null, street: doc.street, number, unit: null, lon, lat}, score: 1, confidence: 'interpolated', lon, lat, number}
  }

  /** Between the two nearest known numbers of the same parity on the street (at most 200 apart). */
  private between(doc: Doc, number: string, want: number): Hit | null {
    const list = this.streets.get(`${fold(doc.street ?? '')}|${doc.city ?? ''}`)
    if (!list) return null
    let lo: Doc | null = null, hi: Doc | null = null
    for (const i of list) {
      const d = this.doc(i), v = numberValue(d.number!)
      if (!Number.isFinite(v) || (v - want) % 2 !== 0) continue
      if (v < want && (!lo || v > numberValue(lo.number!))) lo = d
      if (v > want && (!hi || v < numberValue(hi.number!))) hi = d
    }
    if (!lo || !hi) return null
    const a = numberValue(lo.number!), b = numberValue(hi.number!)
    if (b - a > 200) return null
    const f = (want - a) / (b - a)
    const lon = lo.lon + (hi.lon - lo.lon) * f, lat = lo.lat + (hi.lat - lo.lat) * f
    return {doc: {...lo, number, unit: null, lon, lat}, score: 1, confidence: 'interpolated', lon, lat, number}
  }

  /** Docs of `layers` within `radiusM`, nearest first. */
  near(lon: number, lat: number, radiusM: number, layers: ReadonlySet<DocLayer>, limit: number): {doc: Doc; distance: number}[] {
    const dLat = radiusM / 111_320
    const dLon = dLat / Math.max(0.01, Math.cos((lat * Math.PI) / 180))
    const out: {i: number; distance: number}[] = []
    for (const i of this.points.range(lon - dLon, lat - dLat, lon + dLon, lat + dLat)) {
      if (!layers.has(DOC_LAYERS[this.layerOf[i]])) continue
      const distance = haversine(lon, lat, this.lon[i], this.lat[i])
      if (distance <= radiusM) out.push({i, distance})
    }
    return out.sort((a, b) => a.distance - b.distance).slice(0, limit).map(({i, distance}) => ({doc: this.doc(i), distance}))
  }

  /** The street whose line passes nearest the point within `radiusM`, with the nearest point on it. */
  nearestStreet(lon: number, lat: number, radiusM: number): {doc: Doc; distance: number; lon: number; lat: number} | null {
    const dLat = radiusM / 111_320
    const kx = Math.cos((lat * Math.PI) / 180)
    const dLon = dLat / Math.max(0.01, kx)
    let best: {id: number; distance: number; lon: number; lat: number} | null = null
    for (const row of this.streetBoxes.all(lon + dLon, lon - dLon, lat + dLat, lat - dLat) as {id: number; name: string; geometry: string}[]) {
      const g = JSON.parse(row.geometry) as {type: string; coordinates: number[][][] | number[][]}
      const lines = (g.type === 'LineString' ? [g.coordinates] : g.coordinates) as number[][][]
      for (const line of lines) {
        for (let i = 1; i < line.length; i++) {
          const [ax, ay] = line[i - 1], [bx, by] = line[i]
          // nearest point on the segment in a local plane (metres scale is irrelevant for the projection)
          const vx = (bx - ax) * kx, vy = by - ay, wx = (lon - ax) * kx, wy = lat - ay
          const len = vx * vx + vy * vy
          const f = len ? Math.max(0, Math.min(1, (vx * wx + vy * wy) / len)) : 0
          const px = ax + (bx - ax) * f, py = ay + (by - ay) * f
          const distance = haversine(lon, lat, px, py)
          if (distance <= radiusM && (!best || distance < best.distance)) best = {id: row.id, distance, lon: px, lat: py}
        }
      }
    }
    if (!best) return null
    const i = this.streetDoc.get(best.id)
    return i === undefined ? null : {doc: this.doc(i), distance: best.distance, lon: best.lon, lat: best.lat}
  }

  close(): void {
    this.closed = true
  }
}

/** The region's geocoder; regions imported before the geocoding stage get one built in memory on first use. */
export function geocoder(map: MapData, region: string): Geocoder | undefined {
  return map.engine(region, 'geocoding', ({db, blobFile}) => {
    const file = blobFile(GEOCODING_BLOB)
    const admin = new AdminLookup(db)
    if (!file) {
      const docs = [...collectDocs(db, new NameBook(db))]
      const index = buildTokenIndex(docs.map(docTokens))
      const tokens = decodeTokens(index)
      const {primStart, prim} = primaryIndex((t) => findToken(tokens, t), docs.map(primaryTokens))
      const points = new KDBush(docs.length, 64, Float64Array)
      for (const d of docs) points.add(d.lon, d.lat)
      return new Geocoder(memoryDocs(docs), tokens, index.postStart, index.postings, primStart, prim, points.finish(), admin, db)
    }
    const blob = readBlob(file, {kind: GEOCODING_BLOB, version: GEOCODING_BLOB_VERSION})
    const tokens = decodeTokens({text: blob.section('text'), textStart: blob.array('textStart', Uint32Array)})
    return new Geocoder(docSource(db), tokens, blob.array('postStart', Uint32Array), blob.array('postings', Uint32Array),
      blob.array('primStart', Uint32Array), blob.array('prim', Uint32Array), KDBush.from(blob.section('kdbush').slice().buffer), admin, db)
  })
}
