import {z} from 'zod'
import '../zod-messages.js'
import {rangedUids, rangedUuids} from '../beacons/input.js'
import {refuse} from '../errors.js'
import {EVENT_TYPE_STATEMENT, isEventType} from '../events/types.js'
import {isIpRule} from '../geofences/ip.js'
import {isCountryCode} from '../geocoding/country.js'
import {type Change, followed} from '../store/changes.js'
import type {Store} from '../store/db.js'
import {nowIso} from '../store/ids.js'
import {writeGrouped} from '../store/write.js'
import {inputProblem} from '../validate.js'
import {PLACES_SETTINGS} from './settings-input.js'

const flag = z.boolean()
const minutes = z.number().positive()
/** Country codes as an API user writes them (`kp`), stored upper case, each once. */
const countryCodes = z.array(z.string().transform((code) => code.toUpperCase())
  .refine(isCountryCode, 'each must be an ISO 3166-1 alpha-2 country or territory code such as KP or PR (GB, not UK)'))
  .transform((codes) => [...new Set(codes)])

/**
 * Every project setting, its type and default (DECISIONS.md). Stored per environment in `settings`;
 * the places settings are also read and patched through `/v1/settings`.
 */
export const SETTINGS = {
  'geofences.stopDetection': {schema: flag, default: false, description: 'entries only when the device is stopped or in the foreground'},
  'geofences.bufferEntries': {schema: flag, default: false, description: 'enter when within the reported accuracy of the boundary'},
  'geofences.bufferExits': {schema: flag, default: false, description: 'exit only when more than the reported accuracy outside'},
  'geofences.operatingHoursOnly': {schema: flag, default: false, description: 'geofence events only within operating hours'},
  'geofences.minConfidence': {schema: z.number().int().min(1).max(3), default: 2, description: 'confidence (1 low, 2 medium, 3 high) an entry or exit needs'},
  'events.dwell': {schema: flag, default: false, description: 'enable user.dwelled_in_geofence'},
  'events.types': {schema: z.array(z.string().refine(isEventType, EVENT_TYPE_STATEMENT)), default: [] as string[], description: 'event types stored and returned (empty: all)'},
  'places.enabled': {schema: flag, default: false, description: 'place detection on track'},
  'places.chainMetadata': {schema: PLACES_SETTINGS.chainMetadata, default: {} as Record<string, Record<string, unknown>>, description: 'metadata per chain slug'},
  'places.chainMappings': {schema: PLACES_SETTINGS.chainMappings, default: {} as Record<string, string>, description: 'chain slug to your own id'},
  'places.placeFilters': {schema: PLACES_SETTINGS.placeFilters, default: {} as {chain?: string[]; category?: string[]}, description: 'chains and categories that generate place events'},
  'regions.enabled': {schema: flag, default: false, description: 'country, state, DMA and postal code on track'},
  'beacons.enabled': {schema: flag, default: false, description: 'beacon events on track'},
  'beacons.uuids': {schema: rangedUuids, default: [] as string[], description: 'iBeacon UUIDs the SDK ranges by, wherever it is (GET /v1/search/beacons)'},
  'beacons.uids': {schema: rangedUids, default: [] as string[], description: 'Eddystone namespaces (20 hex digits) the SDK ranges by, wherever it is'},
  'fraud.enabled': {schema: flag, default: false, description: 'fraud checks on track'},
  'fraud.block': {schema: flag, default: false, description: 'block users that fail fraud checks'},
  'fraud.proxyRanges': {schema: z.array(z.string().refine(isIpRule, 'each must be an IP address, an IPv4 last-octet wildcard (10.0.0.*) or a CIDR range (10.0.0.0/8, 2001:db8::/32)')), default: [] as string[], description: 'CIDR ranges treated as proxies'},
  'trips.approachingThreshold': {schema: minutes, default: 5, description: 'minutes of ETA at which a trip is approaching'},
  'trips.delayThreshold': {schema: z.number().min(0), default: 5, description: 'minutes late at which a trip is delayed'},
  'trips.expireAfterHours': {schema: minutes, default: 24, description: 'hours without updates after which a trip expires'},
  'security.blockedCountries': {schema: countryCodes, default: [] as string[], description: 'ISO 3166-1 alpha-2 country codes answered with 451'},
  'maps.remoteIcons': {schema: flag, default: false, description: 'allow http(s) marker icons on static maps'},
  'project.disabled': {schema: flag, default: false, description: 'answer every API request with 402'},
  'project.monthlyRequestQuota': {schema: z.number().int().min(0), default: 0, description: 'API requests per calendar month (UTC) before 402; 0: no quota'},
} as const

export type SettingKey = keyof typeof SETTINGS
export type Settings = {[K in SettingKey]: (typeof SETTINGS)[K]['default']}

export const isSettingKey = (key: string): key is SettingKey => Object.hasOwn(SETTINGS, key)

/** Each environment's settings in memory, reloaded when the change feed shows one of its rows changed. */
const cache = followed((store) => {
  const read = store.sqlite.prepare('SELECT key, value FROM settings WHERE live = ?')
  const byEnv: Array<Settings | undefined> = [undefined, undefined]
  return {
    kinds: ['settings'] as const,
    rebuild: () => byEnv.fill(undefined),
    apply(changes: readonly Change[]) {
      for (const change of changes) byEnv[change.live ? 1 : 0] = undefined
    },
    get(live: boolean): Settings {
      return (byEnv[live ? 1 : 0] ??= load(read.all(live ? 1 : 0) as {key: string; value: string}[]))
    },
  }
})

function load(rows: {key: string; value: string}[]): Settings {
  const settings = Object.fromEntries(Object.entries(SETTINGS).map(([k, s]) => [k, structuredClone(s.default)])) as Settings
  for (const row of rows) if (isSettingKey(row.key)) (settings as Record<string, unknown>)[row.key] = JSON.parse(row.value)
  return settings
}

/** All settings of one environment, defaults filled in; from memory, current to the last commit. */
export function getSettings(store: Store, live: boolean): Settings {
  return cache(store).get(live)
}

/** Validates and stores one setting; refused with the key (and the entry's place in it) as `param` and what is valid. */
export function setSetting(store: Store, live: boolean, key: string, value: unknown): Promise<void> {
  return setSettings(store, live, {[key]: value})
}

export const unknownSetting = (key: string) => refuse.invalid(key, `unknown setting; known: ${Object.keys(SETTINGS).join(', ')}`)

/** Validates every pair first, then writes them in one transaction: all or nothing. */
export async function setSettings(store: Store, live: boolean, values: Record<string, unknown>): Promise<void> {
  const rows = Object.entries(values).map(([key, value]) => {
    if (!isSettingKey(key)) throw unknownSetting(key)
    // the input limits every API body is held to (prototype keys, depth, lone surrogates), for the CLI too
    const problem = inputProblem(value, '')
    if (problem?.tooComplex) throw refuse.tooComplex(key, problem.statement)
    if (problem) throw refuse.invalid(problem.path ? `${key}.${problem.path}` : key, problem.statement)
    const parsed = SETTINGS[key].schema.safeParse(value)
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      throw refuse.invalid([key, ...issue.path.map(String)].join('.'), issue.message)
    }
    return {live: live ? 1 : 0, key, value: JSON.stringify(parsed.data), updated_at: nowIso()}
  })
  if (rows.length === 0) return
  await writeGrouped(store, (tx) => {
    for (const row of rows) {
      tx.run(store.db.insertInto('settings').values(row)
        .onConflict((oc) => oc.columns(['live', 'key']).doUpdateSet({value: row.value, updated_at: row.updated_at})))
    }
  })
}

/** CLI values arrive as text: JSON where it parses (`true`, `3`, `["US"]`), else the plain string. */
export function parseSettingValue(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return text
  }
}
