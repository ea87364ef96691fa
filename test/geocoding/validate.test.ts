import {afterAll, beforeAll, describe, expect, it} from 'vitest'
import {expectInvalidParameter, seededQueries, startTestServer, type TestServer} from '../helpers.js'
import {importServed, MONACO, fixture} from '../osm/helpers.js'

let server: TestServer
const validate = (query: Record<string, string>) =>
  server.call('GET', `/v1/addresses/validate?${new URLSearchParams(query)}`, {key: server.keys.testPk})

beforeAll(async () => {
  server = await startTestServer()
  await importServed(server, fixture('baltimore-md-us.osm.pbf'))
  await importServed(server, MONACO, {add: true})
}, 120_000)
afterAll(() => server?.stop())

const BALTIMORE = {city: 'Baltimore', stateCode: 'MD', countryCode: 'US'}

/** Input in, exact answer out: every verificationStatus, units, corrections, record types. */
const GOLDEN: [string, Record<string, string>, Record<string, unknown>][] = [
  ['verified: every part as mapped, abbreviations expanded', {...BALTIMORE, addressLabel: '2120 E Fairmount Ave', postalCode: '21231'}, {
    address: {addressLabel: '2120 East Fairmount Avenue', number: '2120', street: 'East Fairmount Avenue', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21231', countryCode: 'US', formattedAddress: '2120 East Fairmount Avenue, Baltimore, MD 21231, USA',
      latitude: 39.2930418, longitude: -76.5866517, metadata: {recordType: 'S', propertyType: 'commercial'}},
    result: {verificationStatus: 'verified'},
  }],
  ['verified: a unit the building has; ZIP+4 accepted', {...BALTIMORE, number: '2400', street: 'Boston Street', unit: 'Apt 118', postalCode: '21224-1234'}, {
    address: {addressLabel: '2400 Boston Street #118', unit: '118', number: '2400', street: 'Boston Street', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21224', countryCode: 'US', formattedAddress: '2400 Boston Street #118, Baltimore, MD 21224, USA',
      latitude: 39.2816915, longitude: -76.5814395, metadata: {recordType: 'H', propertyType: 'commercial'}},
    result: {verificationStatus: 'verified'},
  }],
  ['partially verified: the building has units, none given', {...BALTIMORE, addressLabel: '2400 Boston St', postalCode: '21224'}, {
    address: {addressLabel: '2400 Boston Street', number: '2400', street: 'Boston Street', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21224', countryCode: 'US', formattedAddress: '2400 Boston Street, Baltimore, MD 21224, USA',
      latitude: 39.2816915, longitude: -76.5814395, metadata: {recordType: 'H', propertyType: 'commercial'}},
    result: {verificationStatus: 'partially verified', analysis: ['unit:missing']},
  }],
  ['partially verified: a unit the building does not have', {...BALTIMORE, addressLabel: '2400 Boston St #999', postalCode: '21224'}, {
    address: {addressLabel: '2400 Boston Street #999', unit: '999', number: '2400', street: 'Boston Street', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21224', countryCode: 'US', formattedAddress: '2400 Boston Street #999, Baltimore, MD 21224, USA',
      latitude: 39.2816915, longitude: -76.5814395, metadata: {recordType: 'H', propertyType: 'commercial'}},
    result: {verificationStatus: 'partially verified', analysis: ['unit:invalid']},
  }],
  ['partially verified: typo in the street, direction missing, wrong ZIP and state corrected', {city: 'Baltimore', stateCode: 'VA', countryCode: 'US', addressLabel: '2120 Fairmont Ave', postalCode: '21299'}, {
    address: {addressLabel: '2120 East Fairmount Avenue', number: '2120', street: 'East Fairmount Avenue', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21231', countryCode: 'US', formattedAddress: '2120 East Fairmount Avenue, Baltimore, MD 21231, USA',
      latitude: 39.2930418, longitude: -76.5866517, metadata: {recordType: 'S', propertyType: 'commercial'}},
    result: {verificationStatus: 'partially verified'},
  }],
  ['partially verified: the street is there, the number is not', {...BALTIMORE, addressLabel: '2401 Boston St', postalCode: '21224'}, {
    address: {addressLabel: '2401 Boston Street', number: '2401', street: 'Boston Street', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21224', countryCode: 'US', formattedAddress: '2401 Boston Street, Baltimore, MD 21224, USA', metadata: {recordType: 'S'}},
    result: {verificationStatus: 'partially verified'},
  }],
  ['ambiguous: the same number and street in two ZIP codes, neither given', {...BALTIMORE, addressLabel: '3501 Boston St', postalCode: '21299'}, {
    address: {addressLabel: '3501 Boston St', number: '3501', street: 'Boston St', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21299', countryCode: 'US', formattedAddress: '3501 Boston St, Baltimore, MD 21299, USA', metadata: {recordType: 'S'}},
    result: {verificationStatus: 'ambiguous'},
  }],
  ['unverified: no such street there', {...BALTIMORE, addressLabel: '1 Nowhere Lane', postalCode: '21224'}, {
    address: {addressLabel: '1 Nowhere Lane', number: '1', street: 'Nowhere Lane', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21224', countryCode: 'US', formattedAddress: '1 Nowhere Lane, Baltimore, MD 21224, USA', metadata: {recordType: 'S'}},
    result: {verificationStatus: 'unverified'},
  }],
  ['unverified: a PO box (record type P)', {...BALTIMORE, addressLabel: 'PO Box 12', postalCode: '21224'}, {
    address: {addressLabel: 'PO Box 12', street: 'PO Box 12', city: 'Baltimore', stateCode: 'MD',
      postalCode: '21224', countryCode: 'US', formattedAddress: 'PO Box 12, Baltimore, MD 21224, USA', metadata: {recordType: 'P'}},
    result: {verificationStatus: 'unverified'},
  }],
  ['verified outside the US too (no state there)', {addressLabel: '6 bd de Belgique', city: 'monaco', postalCode: '98000', countryCode: 'mc'}, {
    address: {addressLabel: '6 Boulevard de Belgique', number: '6', street: 'Boulevard de Belgique', city: 'Monaco', postalCode: '98000',
      countryCode: 'MC', formattedAddress: '6 Boulevard de Belgique, 98000 Monaco, Monaco', latitude: 43.7369671, longitude: 7.4179608,
      metadata: {recordType: 'S', propertyType: 'residential'}},
    result: {verificationStatus: 'verified'},
  }],
]

describe('GET /v1/addresses/validate', () => {
  it.each(GOLDEN)('%s', async (_name, query, expected) => {
    const {status, body} = await validate(query)
    expect(status).toBe(200)
    expect(body).toEqual({meta: {code: 200}, ...expected})
  })

  it('takes the postal town of the ZIP code, not only the town the map names (Highlandtown is mail for Baltimore 21224)', async () => {
    const {body} = await validate({...BALTIMORE, addressLabel: '6615 Tributary St', postalCode: '21224'})
    expect(body.result.verificationStatus).toBe('verified')
    expect(body.address.city).toBe('Baltimore')
  })

  const BAD: [string, Record<string, string>, string][] = [
    ['no city', {addressLabel: '1 Main St', stateCode: 'MD', postalCode: '21224', countryCode: 'US'}, 'city'],
    ['no postal code', {addressLabel: '1 Main St', city: 'X', stateCode: 'MD', countryCode: 'US'}, 'postalCode'],
    ['no country', {addressLabel: '1 Main St', city: 'X', stateCode: 'MD', postalCode: '21224'}, 'countryCode'],
    ['a 3-letter country', {addressLabel: '1 Main St', city: 'X', stateCode: 'MD', postalCode: '21224', countryCode: 'USA'}, 'countryCode'],
    ['no state in the US', {addressLabel: '1 Main St', city: 'X', postalCode: '21224', countryCode: 'US'}, 'stateCode'],
    ['a state name', {addressLabel: '1 Main St', city: 'X', stateCode: 'Maryland', postalCode: '21224', countryCode: 'US'}, 'stateCode'],
    ['a bad ZIP', {addressLabel: '1 Main St', city: 'X', stateCode: 'MD', postalCode: '2122', countryCode: 'US'}, 'postalCode'],
    ['a bad Canadian postcode', {addressLabel: '1 Main St', city: 'X', stateCode: 'BC', postalCode: '12345', countryCode: 'CA'}, 'postalCode'],
    ['neither label nor number', {street: 'Main St', city: 'X', stateCode: 'MD', postalCode: '21224', countryCode: 'US'}, 'number'],
    ['number without street', {number: '1', city: 'X', stateCode: 'MD', postalCode: '21224', countryCode: 'US'}, 'street'],
    ['an empty label', {addressLabel: ' ', city: 'X', stateCode: 'MD', postalCode: '21224', countryCode: 'US'}, 'addressLabel'],
    ['a long label', {addressLabel: 'x'.repeat(513), city: 'X', stateCode: 'MD', postalCode: '21224', countryCode: 'US'}, 'addressLabel'],
  ]
  it.each(BAD)('refuses %s, naming the param', async (_name, query, param) => {
    expectInvalidParameter(await validate(query), param)
  })
})

describe('forward geocode on addr:interpolation lines (end numbers from their end nodes)', () => {
  it('places a number between the ends of the line, along it', async () => {
    const {body} = await server.call('GET', `/v1/geocode/forward?query=${encodeURIComponent("2911 O'Donnell Street, Baltimore")}`, {key: server.keys.testPk})
    const [top] = body.addresses
    expect(top).toMatchObject({confidence: 'interpolated', layer: 'address', number: '2911', street: "O'Donnell Street"})
    // the line runs east from 2901 (-76.57528) to 2919 at latitude 39.2800
    expect(top.longitude).toBeGreaterThan(-76.57528)
    expect(top.longitude).toBeLessThan(-76.5742)
    expect(Math.abs(top.latitude - 39.28)).toBeLessThan(0.0002)
  })
})

describe('fuzz', () => {
  it('answers 200 or a 400 naming a param to seeded random values of every parameter, never 500', async () => {
    const junk = ['', ' ', '-1', '1e309', 'NaN', ',', 'null', '[]', 'ä😀', '999999999', '21224', '21224-1234', 'V6B 1A1', 'US', 'ca', 'MD',
      '#', 'Apt', '2400 Boston St #', 'PO Box', '1-2 A St', 'a'.repeat(600), '%E0%A4%A', '%00']
    const params = ['number', 'street', 'addressLabel', 'unit', 'city', 'stateCode', 'postalCode', 'countryCode']
    for (const query of seededQueries({seed: 7, count: 150, params, junk, keep: 0.75})) {
      const path = `/v1/addresses/validate?${query}`
      const {status, body} = await server.call('GET', path, {key: server.keys.testPk})
      expect([200, 400], `${path} → ${JSON.stringify(body)}`).toContain(status)
      if (status === 400) expect(body.meta.message.startsWith(`${body.meta.param}: `), path).toBe(true)
      else expect(body.result.verificationStatus, path).toMatch(/^(verified|partially verified|ambiguous|unverified)$/)
    }
  })
})
