// Geocoding quality on real extracts: 1,000 seeded addresses per region from ../shared/data/osm, each
// geocoded forward in three spellings, with a typo, reversed, and autocompleted from 60 % of its text.
// An address held by several buildings (same number, street and city) counts as found at any of them.
// `npm run bench -- geocode-quality [regions...]`
import {existsSync, mkdtempSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {autocomplete, forwardGeocode, reverseGeocode} from '../dist/geocoding/search.js'
import {openMapData} from '../dist/map/index.js'
import {haversine} from '../dist/osm/geom.js'
import {importOsm} from '../dist/osm/index.js'
import {report} from './harness.js'

const SHARED = path.resolve('../shared/data/osm')
const regions = process.argv.slice(2).length ? process.argv.slice(2) : ['monaco', 'liechtenstein', 'manhattan-ny-us']
const PER_REGION = 1000

let seed = 20261122
const rand = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32)
const pick = (n) => Math.floor(rand() * n)

const plain = (s) => s.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '')

/** One edit (substitute, delete, insert or swap) inside the street's longest word of 4+ letters. */
function typo(street) {
  const words = street.split(' ')
  let w = words.reduce((best, x, i) => (x.length > words[best].length ? i : best), 0)
  const word = words[w]
  if (word.length < 4) return null
  const i = 1 + pick(word.length - 1)
  const letter = 'abcdefghijklmnopqrstuvwxyz'[pick(26)]
  const kind = pick(4)
  const edited = kind === 0 ? word.slice(0, i) + letter + word.slice(i + 1)
    : kind === 1 ? word.slice(0, i) + word.slice(i + 1)
    : kind === 2 ? word.slice(0, i) + letter + word.slice(i)
    : i < word.length - 1 ? word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2) : word.slice(0, i) + letter
  if (edited === word) return null
  words[w] = edited
  return words.join(' ')
}

const dataDir = mkdtempSync(path.join(os.tmpdir(), 'loc-geocode-quality-'))
const TARGETS = {forward: 97, reordered: 95, lowercase: 95, typo: 90, reverse: 95, autocomplete: 90}
const totals = Object.fromEntries(Object.keys(TARGETS).map((k) => [k, {ok: 0, n: 0}]))
try {
  for (const region of regions) {
    const file = path.join(SHARED, `${region}.osm.pbf`)
    if (!existsSync(file)) throw new Error(`${file} is missing (see ../shared/data/osm/README.md)`)
    await importOsm(file, {dataDir, add: true})
  }
  const map = openMapData(dataDir, {checkMs: 0})
  for (const region of regions) {
    const db = map.db(region)
    const rows = db.prepare("SELECT number, street, city, postcode, lon, lat FROM geocoding_docs WHERE layer = 'address' AND street IS NOT NULL AND city IS NOT NULL ORDER BY id").all()
    // the same number, street and city on several buildings: any of their points is the right answer
    const points = new Map()
    for (const r of rows) {
      const key = `${r.number}|${r.street}|${r.city}`
      if (points.has(key)) points.get(key).push(r)
      else points.set(key, [r])
    }
    const sample = []
    for (let i = 0; i < PER_REGION && rows.length; i++) {
      const t = rows[pick(rows.length)]
      sample.push({...t, all: points.get(`${t.number}|${t.street}|${t.city}`)})
    }
    const score = Object.fromEntries(Object.keys(TARGETS).map((k) => [k, {ok: 0, n: 0}]))
    const count = (k, ok, what) => {
      if (!ok && process.env.BENCH_VERBOSE) console.log(`  miss ${k}: ${what}`)
      score[k].n++
      totals[k].n++
      if (ok) {
        score[k].ok++
        totals[k].ok++
      }
    }
    const near = (a, t) => !!a && t.all.some((p) => haversine(a.longitude, a.latitude, p.lon, p.lat) <= 30)
    const fwd = (query) => forwardGeocode(map, {query, lang: 'en'})[0]
    for (const t of sample) {
      const line = `${t.number} ${t.street}, ${t.city}`
      count('forward', near(fwd(line), t), line)
      const reordered = `${t.street} ${t.number}, ${t.postcode ? `${t.postcode} ` : ''}${t.city}`
      count('reordered', near(fwd(reordered), t), reordered)
      count('lowercase', near(fwd(plain(line)), t))
      const typoed = typo(t.street)
      if (typoed) count('typo', near(fwd(`${t.number} ${typoed}, ${t.city}`), t))
      const [r] = reverseGeocode(map, {coordinates: [t.lon, t.lat]})
      count('reverse', !!r && r.number === t.number && r.street === t.street)
      const prefix = line.slice(0, Math.ceil(line.length * 0.6))
      const top5 = autocomplete(map, {query: prefix, limit: 5}, [t.lon, t.lat])
      count('autocomplete', top5.some((a) => a.number === t.number && a.street === t.street && near(a, t)), prefix)
    }
    report(`${region}: ${sample.length} addresses`, Object.entries(score).map(([k, v]) => ({
      name: k, value: (100 * v.ok) / Math.max(1, v.n), unit: '%', target: `≥ ${TARGETS[k]} %`, ok: (100 * v.ok) / Math.max(1, v.n) >= TARGETS[k],
    })))
  }
  report('overall', Object.entries(totals).map(([k, v]) => ({
    name: k, value: (100 * v.ok) / Math.max(1, v.n), unit: '%', target: `≥ ${TARGETS[k]} %`, ok: (100 * v.ok) / Math.max(1, v.n) >= TARGETS[k],
  })))
  console.log(`\nload average: ${os.loadavg().map((l) => l.toFixed(2)).join(' ')}`)
  map.close()
} finally {
  rmSync(dataDir, {recursive: true, force: true})
}
