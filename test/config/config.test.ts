import {writeFileSync} from 'node:fs'
import path from 'node:path'
import {describe, expect, it} from 'vitest'
import {loadConfig, PACKAGE_ROOT} from '../../src/config/index.js'
import {tempDir} from '../helpers.js'

describe('configuration', () => {
  it('defaults to data/ under the package, 127.0.0.1:8080 and the spec rate limits', () => {
    const config = loadConfig({env: {}})
    expect(config.dataDir).toBe(path.join(PACKAGE_ROOT, 'data'))
    expect(config).toMatchObject({host: '127.0.0.1', port: 8080, rateLimits: {track: 1, geocode: 10, searchPlaces: 150, matrix: 20, data: 10}})
  })

  it('applies a --config file, then LOC_* variables (nested with __), then overrides', () => {
    const file = path.join(tempDir(), 'loc.json')
    writeFileSync(file, JSON.stringify({port: 9000, host: '0.0.0.0', rateLimits: {track: 3}}))
    const config = loadConfig({file, env: {LOC_PORT: '9100', LOC_DATA_DIR: '/srv/loc', LOC_RATE_LIMITS__GEOCODE: '50', LOC_UNRELATED: 'x'}, overrides: {host: '::1'}})
    expect(config).toMatchObject({port: 9100, dataDir: '/srv/loc', host: '::1', rateLimits: {track: 3, geocode: 50, data: 10}})
  })

  it('refuses invalid values with the setting named', () => {
    expect(() => loadConfig({env: {LOC_PORT: '70000'}})).toThrow(/invalid configuration: port/)
    expect(() => loadConfig({file: '/nonexistent/loc.json', env: {}})).toThrow(/cannot read config file/)
  })
})
