import {describe, expect, it} from 'vitest'
import {geofenceInputSchema} from '../../src/geofences/input.js'
import {contentColumns} from '../../src/geofences/store.js'
import {fastGeofenceRows} from '../../src/sync/geofence-row.js'
import {type Header, readHeader, rowInput} from '../../src/sync/header.js'
import {GEOFENCE_CSV} from '../../src/sync/import.js'

const RING = '[[7.41,43.73],[7.42,43.73],[7.42,43.74],[7.41,43.73]]'

/** Valid and invalid cells per column: the fast path must agree with the schema on every mix. */
const CELLS: Record<string, string[]> = {
  description: ['Store 7', 'Zone', '\u00a0', 'x'.repeat(4096), 'x'.repeat(4097), '', '12'],
  type: ['circle', 'circle', 'polygon', 'polygon', 'isochrone', 'Circle', '', 'square'],
  tag: ['bench', 'bench', 'a'.repeat(256), 'a'.repeat(257), '', '0'],
  externalId: ['1', '17', 'x-1', 'e'.repeat(257), ''],
  coordinates: ['[7.4,43.7]', '[7.4, 43.7]', '[7.123456789,43.1]', '[-0,0]', '["7.4","43.7"]', '[181,0]', '[0,91]', '[7.4]', '[7.4,43.7,1]',
    '[1e999,0]', '{"a":1}', 'abc', '', '[7.4,43.7', '[]', RING, RING, `[${RING}]`, '[[7.41,43.73],[7.42,43.73],[7.42,43.74],[7.41,43.75]]',
    '[[7.41,43.73],[7.42,43.73],[7.41,43.73]]', '[[[7.41,43.73],[7.42,43.73],[7.42,43.74],[7.41,43.73]],[[0,0],[1,0],[1,1],[0,0]]]'],
  radius: ['100', '100', '10', '9.99', '10000', '10001', '+50', '.5e3', '1e3', 'abc', '', '', '0x10', '-5', 'Infinity', '1e999'],
  mode: ['', '', 'car', 'Car', 'plane'],
  enabled: ['', 'true', 'false', '1', '0', 'TRUE', 'yes'],
  stopDetection: ['', '', 'true', 'false', '0', 'no'],
  dwellThreshold: ['', '', '5', '2.5', '0', '-1', 'abc'],
  tripApproachingThreshold: ['', '3', '0'],
  userId: ['', '', 'u1', 'u'.repeat(257)],
  address: ['', '', '', 'Main St'],
  ip: ['', '', '', '10.0.0.0/8', 'nope'],
  disableAfter: ['', '', '', '2030-01-01', 'soon'],
  'metadata.kind': ['', 'zone', 'true', 'false', '12', '012', '-3.5', '1e3', 'x'.repeat(1024), 'x'.repeat(1025)],
  'metadata.1': ['', '7', 'a'],
  'operatingHours.mon': ['', '', '09:00-17:00', '9:00 am - 5:00 pm', '[["09:00","17:00"]]', '09:00-09:00', '25:00-26:00', 'closed',
    '09:00-12:00;13:00-17:00', '[bad', '[["09:00"]]'],
  'operatingHours.SAT': ['', '10:00-14:00', '10:00 - 14:00', 'x-y'],
}

/** Headers the rows are read under: the bench's, every column, and ones whose metadata keys the schema treats apart. */
const HEADERS = [
  ['description', 'type', 'tag', 'externalId', 'coordinates', 'radius', 'enabled', 'metadata.kind', 'metadata.1', 'operatingHours.mon', 'operatingHours.SAT'],
  Object.keys(CELLS),
  ['description', 'type', 'tag', 'externalId', 'address', 'radius'],
  ['description', 'type', 'tag', 'externalId', 'coordinates', 'radius', `metadata.${'k'.repeat(129)}`],
  ['description', 'type', 'tag', 'externalId', 'coordinates', 'radius', 'metadata.__proto__', 'metadata.constructor'],
  ['description', 'type', 'tag', 'externalId', 'coordinates', 'radius', ...Array.from({length: 17}, (_, i) => `metadata.k${i}`)],
]

function* seededRows(seed: number, names: string[], count: number): Generator<string[]> {
  const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff)
  const pick = (values: string[]) => values[Math.floor(rand() * values.length)]
  for (let i = 0; i < count; i++) {
    // most rows plainly well-formed with one cell changed, the rest any mix
    const plain = rand() < 0.6
    const cells = names.map((name) => {
      const values = CELLS[name] ?? ['', 'v', '1', 'x'.repeat(1025)]
      return plain ? values[0] : pick(values)
    })
    if (plain) {
      const polygon = i % 2 === 1
      cells[names.indexOf('type')] = polygon ? 'polygon' : 'circle'
      if (names.includes('coordinates')) cells[names.indexOf('coordinates')] = polygon ? RING : '[7.4,43.7]'
      const j = Math.floor(rand() * names.length)
      if (rand() < 0.7) cells[j] = pick(CELLS[names[j]] ?? ['', 'v'])
    }
    if (rand() < 0.02) cells.pop()
    yield cells
  }
}

/** The schema's answer for a row: its input and staged columns, or its failures. */
function slow(header: Header, cells: string[]) {
  const parsed = rowInput(geofenceInputSchema, header, 2, cells)
  if ('failures' in parsed) return {failures: parsed.failures}
  return {value: parsed.value, columns: contentColumns(parsed.value, '')}
}

describe('geofence CSV fast path', () => {
  it('gives exactly the schema’s input and stored columns for every row it takes, and leaves every invalid row to the schema', () => {
    let fastRows = 0, invalid = 0
    HEADERS.forEach((names, h) => {
      const header = readHeader(GEOFENCE_CSV, names)
      if (Array.isArray(header)) throw new Error(JSON.stringify(header))
      const fast = fastGeofenceRows(header)
      for (const cells of seededRows(1000 + h, names, 1500)) {
        const expected = slow(header, cells)
        const value = fast(cells)
        if ('failures' in expected) {
          invalid++
          expect(value, `row ${JSON.stringify(cells)} fails in the schema: ${JSON.stringify(expected.failures)}`).toBeUndefined()
          continue
        }
        if (value === undefined) continue
        fastRows++
        expect(value, JSON.stringify(cells)).toStrictEqual(expected.value)
        expect(contentColumns(value, '')).toStrictEqual(expected.columns)
      }
    })
    // the comparison covers both paths well: many rows taken fast, many refused
    expect(fastRows).toBeGreaterThan(1500)
    expect(invalid).toBeGreaterThan(3000)
  })

  it('takes the plainly well-formed rows of the bench’s format', () => {
    const header = readHeader(GEOFENCE_CSV, HEADERS[0]) as Header
    const fast = fastGeofenceRows(header)
    expect(fast(['Store 1', 'circle', 'bench', '1', '[7.4,43.7]', '120', 'true', 'store', '1', '09:00-17:00', '10:00-14:00'])).toMatchObject({
      type: 'circle', tag: 'bench', externalId: '1', enabled: true, metadata: {1: 1, kind: 'store'}, operatingHours: {Mon: [['09:00', '17:00']], Sat: [['10:00', '14:00']]},
      shape: {center: [7.4, 43.7], radius: 120},
    })
    expect(fast(['Zone 2', 'polygon', 'bench', '2', RING, '', 'false', '', '', '', ''])).toMatchObject({type: 'polygon', enabled: false, metadata: undefined, operatingHours: undefined})
    expect(fast(['Zone 2', 'isochrone', 'bench', '2', '[7.4,43.7]', '10', '', '', '', '', ''])).toBeUndefined()
  })
})
