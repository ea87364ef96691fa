import {createHmac, randomBytes, timingSafeEqual} from 'node:crypto'

/**
 * The headers that sign one request body (docs/api/webhooks.md):
 * - `X-Loc-Signature: t=<epoch seconds>,v1=<hex HMAC-SHA256(secret, t + "." + body)>`: covers the
 *   body and the time, so a receiver can refuse forged, altered and replayed requests;
 * - `X-Radar-Signing-Id` and `X-Radar-Signature` (hex HMAC-SHA1(secret, signing id)), the pair the
 *   hosted original sends, so receivers written for it keep working. It does not cover the body.
 */
export function signatureHeaders(secret: string, body: string, epochSeconds = Math.floor(Date.now() / 1000)): Record<string, string> {
  const signingId = nextSigningId()
  return {
    'x-loc-signature': `t=${epochSeconds},v1=${createHmac('sha256', secret).update(`${epochSeconds}.${body}`).digest('hex')}`,
    'x-radar-signing-id': signingId,
    'x-radar-signature': createHmac('sha1', secret).update(signingId).digest('hex'),
  }
}

let pool = Buffer.alloc(0)
let at = 0

/** 12 random bytes as hex, from a pool filled 4 KiB at a time (a call to the CSPRNG each cost more than the HMACs). */
function nextSigningId(): string {
  if (at + 12 > pool.length) {
    pool = randomBytes(4092)
    at = 0
  }
  at += 12
  return pool.toString('hex', at - 12, at)
}

/**
 * Checks an `X-Loc-Signature` header against the raw body, as a receiver does; `toleranceS` bounds
 * the age of the timestamp (replays). Exported for tests and as the reference for the docs.
 */
export function verifyLocSignature(secret: string, body: string, header: string, toleranceS = 300, nowS = Date.now() / 1000): boolean {
  const parts = Object.fromEntries(header.split(',').map((p) => p.split('=', 2) as [string, string]))
  const t = Number(parts.t)
  if (!Number.isFinite(t) || Math.abs(nowS - t) > toleranceS || !parts.v1) return false
  const expected = createHmac('sha256', secret).update(`${parts.t}.${body}`).digest()
  const given = Buffer.from(parts.v1, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** Checks the compat pair: `X-Radar-Signature` is HMAC-SHA1 of `X-Radar-Signing-Id` keyed by the secret. */
export function verifyRadarSignature(secret: string, signingId: string, signature: string): boolean {
  const expected = createHmac('sha1', secret).update(signingId).digest()
  const given = Buffer.from(signature, 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
