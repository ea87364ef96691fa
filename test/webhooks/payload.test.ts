import {describe, expect, it} from 'vitest'
import type {EventRow} from '../../src/events/json.js'
import {deliveryBody} from '../../src/webhooks/payload.js'
import {nextAttemptAt} from '../../src/webhooks/schedule.js'
import {signatureHeaders, verifyLocSignature, verifyRadarSignature} from '../../src/webhooks/signing.js'
import {isPrivateAddress, urlProblem} from '../../src/webhooks/target.js'

const row = (id: string, name: string): EventRow => ({
  id, live: 1, type: 'conversion', user_ref: 'u', user_id: 'user-1', created_at: '2026-11-22T10:00:00.000Z', actual_created_at: '2026-11-22T10:00:00.100Z',
  payload: JSON.stringify({name, metadata: {}, user: {_id: 'u', userId: 'user-1'}}),
})

describe('webhook payloads and signatures (golden)', () => {
  it('a single delivery is {event, user}; a batch {events, user}', () => {
    expect(deliveryBody([row('6b0376614e9cd83c5549b9e7', 'checkout')], false)).toBe(
      '{"event":{"_id":"6b0376614e9cd83c5549b9e7","createdAt":"2026-11-22T10:00:00.000Z","actualCreatedAt":"2026-11-22T10:00:00.100Z","live":true,"type":"conversion","name":"checkout","metadata":{},"user":{"_id":"u","userId":"user-1"}},"user":{"_id":"u","userId":"user-1"}}')
    expect(JSON.parse(deliveryBody([row('a', 'one'), row('b', 'two')], true))).toEqual({
      events: [expect.objectContaining({_id: 'a', name: 'one'}), expect.objectContaining({_id: 'b', name: 'two'})],
      user: {_id: 'u', userId: 'user-1'},
    })
  })

  it('X-Loc-Signature is HMAC-SHA256 of "t.body"; the X-Radar pair HMAC-SHA1 of the signing id', () => {
    const body = '{"event":{"_id":"6b0376614e9cd83c5549b9e7"},"user":null}'
    const headers = signatureHeaders('whsec_golden', body, 1795000000)
    expect(headers['x-loc-signature']).toBe('t=1795000000,v1=a77f06c8df7a41838c925039fd2c9e21e047fa28e84990069a2b08d468473b82')
    expect(verifyLocSignature('whsec_golden', body, headers['x-loc-signature'], 300, 1795000100)).toBe(true)
    expect(verifyRadarSignature('whsec_golden', '00112233445566778899aabb', '1c321ab5bd1ac4466864d1c719cd092bac73aa29')).toBe(true)
    expect(verifyRadarSignature('whsec_golden', headers['x-radar-signing-id'], headers['x-radar-signature'])).toBe(true)
    expect(headers['x-radar-signing-id']).not.toBe(signatureHeaders('whsec_golden', body)['x-radar-signing-id'])
  })

  it('retries back off on the schedule with ±20 % jitter, then stop', () => {
    const delays = [10_000, 60_000]
    expect(nextAttemptAt(delays, 1, 0, () => 0)).toBe(8_000)
    expect(nextAttemptAt(delays, 1, 0, () => 1)).toBe(12_000)
    expect(nextAttemptAt(delays, 2, 0, () => 0.5)).toBe(60_000)
    expect(nextAttemptAt(delays, 3, 0)).toBeNull()
  })

  it('refuses private, loopback and link-local targets unless allowed', () => {
    for (const ip of ['127.0.0.1', '10.1.2.3', '172.16.0.1', '192.168.1.1', '169.254.169.254', '::1', 'fd00::1', 'fe80::1', '::ffff:127.0.0.1', '0.0.0.0']) {
      expect(isPrivateAddress(ip), ip).toBe(true)
    }
    for (const ip of ['8.8.8.8', '2606:4700::1111', '172.32.0.1']) expect(isPrivateAddress(ip), ip).toBe(false)
    expect(urlProblem('http://[::1]:8080/x', false)).toMatch(/public address/)
    expect(urlProblem('http://localhost/x', false)).toMatch(/public address/)
    expect(urlProblem('http://localhost/x', true)).toBeNull()
    expect(urlProblem('https://user:pw@example.com/', false)).toMatch(/credentials/)
    expect(urlProblem('https://example.com/hooks?token=1', false)).toBeNull()
  })
})
