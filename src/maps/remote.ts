import {lookup} from 'node:dns/promises'
import http from 'node:http'
import https from 'node:https'
import {BlockList, type LookupFunction, isIP} from 'node:net'

/** Limits of a remote marker icon: its size, and how long its server may take. */
export const REMOTE_ICON_BYTES = 256 * 1024
export const REMOTE_ICON_MS = 3000

/** Addresses a caller must not make the server reach: loopback, private, link-local, shared, multicast, reserved, and their IPv6 kin. */
const PRIVATE = new BlockList()
for (const [net, bits] of [['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12], ['192.0.0.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 3]] as const) {
  PRIVATE.addSubnet(net, bits, 'ipv4')
}
for (const [net, bits] of [['::', 127], ['fc00::', 7], ['fe80::', 10], ['ff00::', 8], ['64:ff9b::', 96], ['2001:db8::', 32]] as const) PRIVATE.addSubnet(net, bits, 'ipv6')

export function isPrivateAddress(ip: string): boolean {
  const v4 = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(ip)?.[1]
  if (v4) return PRIVATE.check(v4, 'ipv4')
  return PRIVATE.check(ip, isIP(ip) === 6 ? 'ipv6' : 'ipv4')
}

/**
 * The bytes at an http(s) URL, for a marker icon: the host's addresses are resolved once and the
 * request goes to the vetted one (a second lookup cannot swap in a private address), no redirects,
 * at most REMOTE_ICON_BYTES within REMOTE_ICON_MS. Rejects with a sentence saying why.
 * `anyAddress` lifts the private address check (for a deployment's own network, and tests).
 */
export async function fetchRemote(url: string, anyAddress = false): Promise<Buffer> {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    throw new Error('not a URL')
  }
  if (target.protocol !== 'http:' && target.protocol !== 'https:') throw new Error('not http or https')
  const host = target.hostname.replace(/^\[|\]$/g, '')
  const addresses = isIP(host) ? [{address: host, family: isIP(host)}] : await lookup(host, {all: true}).catch(() => [])
  if (!addresses.length) throw new Error('the host does not resolve')
  if (!anyAddress && addresses.some((a) => isPrivateAddress(a.address))) throw new Error('a private address')
  const {address, family} = addresses[0]
  return new Promise((resolve, reject) => {
    const client = target.protocol === 'https:' ? https : http
    const req = client.get(target, {
      timeout: REMOTE_ICON_MS,
      lookup: ((_host: string, options: {all?: boolean}, done: (...args: unknown[]) => void) => (options.all ? done(null, [{address, family}]) : done(null, address, family))) as unknown as LookupFunction,
    }, (res) => {
      if (res.statusCode !== 200) {
        res.resume()
        reject(new Error(`answered ${res.statusCode}`))
        return
      }
      const chunks: Buffer[] = []
      let size = 0
      res.on('data', (chunk: Buffer) => {
        size += chunk.length
        if (size > REMOTE_ICON_BYTES) {
          req.destroy()
          reject(new Error(`larger than ${REMOTE_ICON_BYTES / 1024} KB`))
        } else chunks.push(chunk)
      })
      res.on('end', () => resolve(Buffer.concat(chunks)))
      res.on('error', reject)
    })
    const timer = setTimeout(() => {
      req.destroy()
      reject(new Error(`no answer within ${REMOTE_ICON_MS / 1000} s`))
    }, REMOTE_ICON_MS)
    req.on('close', () => clearTimeout(timer))
    req.on('timeout', () => req.destroy(new Error(`no answer within ${REMOTE_ICON_MS / 1000} s`)))
    req.on('error', (e) => reject(new Error(e.message)))
  })
}
