import {isIP} from 'node:net'

/**
 * Geofence IP restrictions: a comma-separated list of single addresses (IPv4 or IPv6), IPv4
 * last-octet wildcards (`10.0.0.*`) and CIDR ranges (`10.0.0.0/8`, `2001:db8::/32`).
 */
export function isIpRule(rule: string): boolean {
  if (isIP(rule)) return true
  const wildcard = /^(\d{1,3}\.\d{1,3}\.\d{1,3})\.\*$/.exec(rule)
  if (wildcard) return isIP(`${wildcard[1]}.0`) === 4
  const cidr = /^([^/]+)\/(\d{1,3})$/.exec(rule)
  if (cidr) {
    const version = isIP(cidr[1])
    const bits = Number(cidr[2])
    return (version === 4 && bits <= 32) || (version === 6 && bits <= 128)
  }
  return false
}

/** Splits a comma-separated list (or takes an array), trimmed, empties dropped. */
export function splitList(value: string | string[]): string[] {
  const items = Array.isArray(value) ? value : value.split(',')
  return items.map((s) => s.trim()).filter(Boolean)
}
