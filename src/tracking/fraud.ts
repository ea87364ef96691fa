import {haversine} from '../geofences/confidence.js'
import {inRanges} from '../geofences/ip.js'
import type {Settings} from '../project/settings.js'

export interface FraudInput {
  mocked: boolean
  compromised: boolean
  sharing: boolean
  accuracy: number
  ip: string
  lng: number
  lat: number
  at: Date
  previous?: {lng: number; lat: number; at: Date}
  /** The `fraud` object of the user's last track, for the `last*At` stamps. */
  before?: Record<string, unknown>
}

const FLAGS = ['mocked', 'jumped', 'compromised', 'inaccurate', 'proxy', 'sharing'] as const
const stamp = (flag: string) => `last${flag[0].toUpperCase()}${flag.slice(1)}At`

/** DECISIONS, fraud: the spec's `fraud` object for one track. */
export function fraudOf(input: FraudInput, settings: Settings): Record<string, unknown> {
  const jumped = (() => {
    if (!input.previous) return false
    const metres = haversine(input.previous.lng, input.previous.lat, input.lng, input.lat)
    const seconds = (input.at.getTime() - input.previous.at.getTime()) / 1000
    return metres > 1000 && (seconds <= 0 || metres / seconds > 250)
  })()
  const ranges = settings['fraud.proxyRanges']
  const flags: Record<(typeof FLAGS)[number], boolean> = {
    mocked: input.mocked,
    jumped,
    compromised: input.compromised,
    inaccurate: input.accuracy > 1000,
    proxy: ranges.length > 0 && inRanges(input.ip, ranges),
    sharing: input.sharing,
  }
  const passed = FLAGS.every((f) => !flags[f])
  const at = input.at.toISOString()
  const out: Record<string, unknown> = {verified: false, passed, bypassed: false, blocked: !passed && settings['fraud.block'], ...flags}
  for (const flag of FLAGS) out[stamp(flag)] = flags[flag] ? at : ((input.before?.[stamp(flag)] as string | null | undefined) ?? null)
  return out
}
