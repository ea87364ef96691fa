import type {Doc} from './docs.js'
import {nameValues} from './names.js'
import {numberTokens, tokens} from './normalize.js'

/** The tokens a doc is found by: its own name/number/street first, then where it is. */
export function docTokens(d: Doc): string[] {
  const out = new Set<string>()
  const add = (text: string | null) => {
    if (text) for (const t of tokens(text)) out.add(t)
  }
  if (d.number) for (const t of numberTokens(d.number)) out.add(t)
  add(d.name)
  for (const name of nameValues(d.names)) add(name)
  add(d.street)
  if (d.streetAka) for (const name of d.streetAka) add(name)
  add(d.neighborhood)
  add(d.borough)
  add(d.city)
  if (d.cityAka) for (const name of d.cityAka) add(name)
  add(d.county)
  add(d.state)
  add(d.postalCode)
  add(d.country)
  if (d.stateCode) out.add(d.stateCode.toLowerCase())
  if (d.countryCode) out.add(d.countryCode.toLowerCase())
  if (d.countryCode === 'US') out.add('usa')
  return [...out]
}

/** Separates a doc's variants in its primary tokens (blob section `prim`). */
export const VARIANT = 0xffffffff

/**
 * The tokens a query must hold to be about this doc rather than about where it is: its number and
 * name (or street), then the same with each of its other names (an address: its street's), each
 * variant a list of its own (a query covers the doc as well as it covers its best variant).
 */
export function primaryTokens(d: Doc): string[][] {
  const out = new Set<string>()
  const number = d.number ? numberTokens(d.number)[0] : null
  if (number) out.add(number)
  for (const t of tokens(d.name ?? d.street ?? '')) out.add(t)
  if (d.name && d.street && d.layer !== 'place') for (const t of tokens(d.street)) out.add(t)
  const variants = [[...out]]
  const seen = new Set([variants[0].join(' ')])
  for (const name of d.layer === 'address' ? d.streetAka ?? [] : nameValues(d.names)) {
    const v = [...new Set([...(number ? [number] : []), ...tokens(name)])]
    const key = v.join(' ')
    if (seen.has(key)) continue
    seen.add(key)
    variants.push(v)
  }
  return variants
}

/** Sorted unique tokens and, per token, the ascending ids (0-based doc indexes) that hold it. */
export interface TokenIndex {
  /** token strings, UTF-8, concatenated in sort order */
  text: Uint8Array
  /** n+1 byte offsets into `text` */
  textStart: Uint32Array
  /** n+1 offsets into `postings` */
  postStart: Uint32Array
  postings: Uint32Array
}

export function buildTokenIndex(docTokenLists: Iterable<string[]>): TokenIndex {
  const byToken = new Map<string, number[]>()
  let doc = 0
  for (const list of docTokenLists) {
    for (const t of list) {
      const p = byToken.get(t)
      if (p) p.push(doc)
      else byToken.set(t, [doc])
    }
    doc++
  }
  const sorted = [...byToken.keys()].sort(compare)
  const enc = new TextEncoder()
  const encoded = sorted.map((t) => enc.encode(t))
  const textStart = new Uint32Array(sorted.length + 1)
  const postStart = new Uint32Array(sorted.length + 1)
  let bytes = 0, posts = 0
  for (let i = 0; i < sorted.length; i++) {
    bytes += encoded[i].length
    posts += byToken.get(sorted[i])!.length
    textStart[i + 1] = bytes
    postStart[i + 1] = posts
  }
  const text = new Uint8Array(bytes)
  const postings = new Uint32Array(posts)
  for (let i = 0; i < sorted.length; i++) {
    text.set(encoded[i], textStart[i])
    postings.set(byToken.get(sorted[i])!, postStart[i])
  }
  return {text, textStart, postStart, postings}
}

/** Code-unit order, the order binary search over JS strings needs. */
export const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0)

export function decodeTokens(index: Pick<TokenIndex, 'text' | 'textStart'>): string[] {
  const dec = new TextDecoder()
  const out = new Array<string>(index.textStart.length - 1)
  for (let i = 0; i < out.length; i++) out[i] = dec.decode(index.text.subarray(index.textStart[i], index.textStart[i + 1]))
  return out
}

/** Index of a token in the sorted list, or -1. */
export function findToken(sorted: readonly string[], t: string): number {
  let lo = 0, hi = sorted.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = sorted[mid]
    if (v < t) lo = mid + 1
    else if (v > t) hi = mid - 1
    else return mid
  }
  return -1
}

/** First index whose token is >= t. */
export function lowerBound(sorted: readonly string[], t: string): number {
  let lo = 0, hi = sorted.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (sorted[mid] < t) lo = mid + 1
    else hi = mid
  }
  return lo
}

export function tokenLookup(index: TokenIndex): (t: string) => number {
  const sorted = decodeTokens(index)
  return (t) => findToken(sorted, t)
}
