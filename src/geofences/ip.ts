import {BlockList, isIP} from 'node:net'

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

/**
 * Rules (a geofence's `ip`, `fraud.proxyRanges`) as a node BlockList (wildcards as /24), for
 * matching request IPs. A rule `isIpRule` refuses is skipped: one stored before it was checked
 * (`10.0.0.0/33`) made BlockList throw, and every track of the environment answer 500.
 */
export function blockListOf(rules: string | string[]): BlockList {
  const list = new BlockList()
  for (const rule of splitList(rules)) {
    if (!isIpRule(rule)) continue
    const wildcard = /^(\d{1,3}\.\d{1,3}\.\d{1,3})\.\*$/.exec(rule)
    if (wildcard) {
      list.addSubnet(`${wildcard[1]}.0`, 24, 'ipv4')
      continue
    }
    const cidr = /^([^/]+)\/(\d{1,3})$/.exec(rule)
    if (cidr) list.addSubnet(cidr[1], Number(cidr[2]), isIP(cidr[1]) === 6 ? 'ipv6' : 'ipv4')
    else if (isIP(rule)) list.addAddress(rule, isIP(rule) === 6 ? 'ipv6' : 'ipv4')
  }
  return list
}

/** Whether a request IP (IPv4-mapped IPv6 taken as IPv4) falls under a block list. */
export function ipMatches(list: BlockList, ip: string): boolean {
  const plain = ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
  const version = isIP(plain)
  if (!version) return false
  return list.check(plain, version === 6 ? 'ipv6' : 'ipv4')
}

const lists = new Map<string, BlockList>()

/** Whether `ip` falls under one of `rules` (`fraud.proxyRanges`: a request's), their BlockList built once per list. */
export function inRanges(ip: string, rules: string[]): boolean {
  if (!rules.length) return false
  const key = rules.join(',')
  let list = lists.get(key)
  if (!list) {
    if (lists.size > 100) lists.clear()
    lists.set(key, (list = blockListOf(rules)))
  }
  return ipMatches(list, ip)
}
