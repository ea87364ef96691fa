import {describe, expect, it} from 'vitest'
import type {Refusal} from '../../src/errors.js'
import {getSettings, setSetting} from '../../src/project/settings.js'
import {freshStore} from '../helpers.js'

const s = freshStore()

/** The refusal `setSetting` throws for the pair; fails the test if the value is taken. */
async function refused(key: string, value: unknown): Promise<Refusal> {
  const before = JSON.stringify(getSettings(s.store, true))
  const error = await setSetting(s.store, true, key, value).then(() => undefined, (e: Refusal) => e)
  if (!error) throw new Error(`${key} = ${JSON.stringify(value).slice(0, 200)} was accepted`)
  expect(error.code).toBe('invalid_parameter')
  expect(error.message.startsWith(`${error.param}: `)).toBe(true)
  expect(JSON.stringify(getSettings(s.store, true))).toBe(before)
  return error
}

describe('project settings validation', () => {
  it('security.blockedCountries takes ISO 3166-1 alpha-2 codes only, upper-cased, each once', async () => {
    for (const code of ['XX', 'UK', 'EU', 'KPR', '', 'K1']) {
      const error = await refused('security.blockedCountries', ['FR', code])
      expect(error.param).toBe('security.blockedCountries.1')
      expect(error.message).toContain('ISO 3166-1 alpha-2')
    }
    await setSetting(s.store, true, 'security.blockedCountries', ['kp', 'IR', 'Kp', 'pr'])
    expect(getSettings(s.store, true)['security.blockedCountries']).toEqual(['KP', 'IR', 'PR'])
  })

  it('a whole number is asked for in words, and a refused entry is named by its key', async () => {
    expect((await refused('project.monthlyRequestQuota', 1.5)).message).toBe('project.monthlyRequestQuota: must be a whole number')
    expect((await refused('geofences.minConfidence', 2.5)).message).toBe('geofences.minConfidence: must be a whole number')
    const mapping = await refused('places.chainMappings', {a: 'ok', b: 1})
    expect(mapping.param).toBe('places.chainMappings.b')
    expect(mapping.message).toBe('places.chainMappings.b: must be a string')
  })

  it('the places settings are held to the limits PATCH /v1/settings keeps, from the CLI too', async () => {
    const chains = (n: number) => Object.fromEntries(Array.from({length: n}, (_, i) => [`chain-${i}`, `id-${i}`]))
    expect((await refused('places.chainMappings', chains(1001))).message).toBe('places.chainMappings: up to 1,000 chains')
    expect((await refused('places.chainMappings', {['c'.repeat(257)]: 'x'})).param).toMatch(/^places\.chainMappings/)
    // as JSON.parse gives it (`loc settings set places.chainMappings '{"__proto__": "x"}'`): an own key
    const proto = await refused('places.chainMappings', JSON.parse('{"__proto__": "x"}'))
    expect(proto.message).toBe('places.chainMappings.__proto__: "__proto__" is not accepted as a key')
    expect((await refused('places.placeFilters', {chains: ['starbucks']})).message).toBe('places.placeFilters: must not have the key "chains"')
    const category = await refused('places.placeFilters', {chain: ['starbucks'], category: ['grocery', 'Food']})
    expect(category.param).toBe('places.placeFilters.category.1')
    expect(category.message).toContain("each must be a place category loc's import assigns")
    await setSetting(s.store, true, 'places.placeFilters', {category: ['grocery', 'food']})
    expect(getSettings(s.store, true)['places.placeFilters']).toEqual({category: ['grocery', 'food']})
    await setSetting(s.store, true, 'places.chainMappings', chains(1000))
    expect(Object.keys(getSettings(s.store, true)['places.chainMappings'])).toHaveLength(1000)
  })
})

describe('beacon ranging settings', () => {
  it('beacons.uuids: iBeacon UUIDs, stored lower case and hyphenated, each once, at most 20', async () => {
    await setSetting(s.store, true, 'beacons.uuids', ['F7826DA6-4FA2-4E98-8024-BC5B71E0893E', 'f7826da64fa24e988024bc5b71e0893e', '2f234454-cf6d-4a0f-adf2-f4911ba9ffa6'])
    expect(getSettings(s.store, true)['beacons.uuids']).toEqual(['f7826da6-4fa2-4e98-8024-bc5b71e0893e', '2f234454-cf6d-4a0f-adf2-f4911ba9ffa6'])
    for (const bad of ['f7826da6-4fa2-4e98-8024-bc5b71e0893', 'g7826da6-4fa2-4e98-8024-bc5b71e0893e', 'edd1ebeac04e5defa017', '']) {
      const error = await refused('beacons.uuids', ['2f234454-cf6d-4a0f-adf2-f4911ba9ffa6', bad])
      expect(error.param).toBe('beacons.uuids.1')
      expect(error.message).toContain('UUID')
    }
    const many = Array.from({length: 21}, (_, i) => `00000000-0000-0000-0000-${String(i).padStart(12, '0')}`)
    expect((await refused('beacons.uuids', many)).message).toBe('beacons.uuids: must have at most 20 items')
  })

  it('beacons.uids: Eddystone namespaces of 10 bytes, 20 hex digits, stored lower case, each once', async () => {
    await setSetting(s.store, true, 'beacons.uids', ['EDD1EBEAC04E5DEFA017', '0xedd1ebeac04e5defa017', '8b0ca750e7a74e14bd99'])
    expect(getSettings(s.store, true)['beacons.uids']).toEqual(['edd1ebeac04e5defa017', '8b0ca750e7a74e14bd99'])
    for (const bad of ['edd1ebeac04e5defa01', 'edd1ebeac04e5defa0177', 'zdd1ebeac04e5defa017', 'f7826da6-4fa2-4e98-8024-bc5b71e0893e']) {
      const error = await refused('beacons.uids', [bad])
      expect(error.param).toBe('beacons.uids.0')
      expect(error.message).toContain('10 bytes')
    }
  })
})
