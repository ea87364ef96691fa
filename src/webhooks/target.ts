import {lookup as dnsLookup, type LookupAddress} from 'node:dns'
import {BlockList, isIP, type LookupFunction} from 'node:net'

/** Loopback, private, link-local, shared, unspecified and multicast ranges: not the public Internet. */
const PRIVATE = new BlockList()
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]] as const) PRIVATE.addSubnet(net, bits, 'ipv4')
for (const [net, bits] of [['::', 128], ['::1', 128], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8]] as const) PRIVATE.addSubnet(net, bits, 'ipv6')

/** True for an address a webhook may not target unless `webhooks.allowPrivate` is on. */
export function isPrivateAddress(address: string): boolean {
  const family = isIP(address)
  if (family === 0) return false
  if (family === 6) {
    const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)
    if (mapped) return PRIVATE.check(mapped[1], 'ipv4')
  }
  return PRIVATE.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** The host of a URL as `net` sees it: IPv6 literals without brackets. */
const hostOf = (url: URL) => url.hostname.replace(/^\[|\]$/g, '')

/** Why a webhook URL cannot be used, or null: http(s), no credentials, and a public host unless private ones are allowed. */
export function urlProblem(raw: string, allowPrivate: boolean): string | null {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    return 'must be an absolute http or https URL'
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an absolute http or https URL'
  if (url.username || url.password) return 'must not hold credentials (the signature authenticates loc)'
  if (!allowPrivate && (url.hostname === 'localhost' || url.hostname.endsWith('.localhost') || isPrivateAddress(hostOf(url)))) {
    return 'must be a public address (private and loopback targets need the config webhooks.allowPrivate)'
  }
  return null
}

/**
 * A DNS lookup for the sending agent that refuses names resolving to private addresses, so a public
 * name cannot be pointed at the inside of the network after the webhook was added (DNS rebinding).
 */
export function publicLookup(): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, {...options, all: true}, (error, addresses: LookupAddress[]) => {
      if (error) return callback(error, '', 0)
      const bad = addresses.find((a) => isPrivateAddress(a.address))
      if (bad) return callback(Object.assign(new Error(`${hostname} resolves to a private address`), {code: 'EPRIVATE'}), '', 0)
      if ((options as {all?: boolean}).all) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      callback(null, addresses[0].address, addresses[0].family)
    })
  }
}

/** True when the URL's host is a literal private address (a lookup never runs for those). */
export function literalPrivate(url: URL): boolean {
  return isPrivateAddress(hostOf(url))
}
