import {describe, expect, it} from 'vitest'
import type {Refusal} from '../../src/errors.js'
import {getSettings, setSetting} from '../../src/project/settings.js'
import {freshStore} from '../helpers.js'

const s = freshStore()

/** The refusal `setSetting` throws for the pair; fails the test if the value is taken. */
async function refused(key: string, value: unknown): Promise<Refusal> {
  const before = JSON.stringify(getSettings(s.store, true))
  const error = await setSetting(s.store, true, key, value).then(() => undefined, (e: Refusal) => e)
  if (!error) throw new Error(`${key} = ${JSON.stringify(value)} was accepted`)
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
})
