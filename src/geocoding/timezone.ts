import tzlookup from '@photostructure/tz-lookup'

export interface TimeZone {
  id: string
  name: string
  code: string
  /** local time now, ISO 8601 with the offset */
  currentTime: string
  /** seconds east of UTC now, DST included */
  utcOffset: number
  /** seconds of daylight saving time in force now */
  dstOffset: number
}

const formats = new Map<string, {long: Intl.DateTimeFormat; short: Intl.DateTimeFormat}>()
const clocks = new Map<string, Intl.DateTimeFormat>()
const standards = new Map<string, number>()
/** the answer per zone for the current second, with its JSON text: results of one request share it */
const latest = new Map<string, {second: number; zone: TimeZone; json: string}>()

function offsetMinutes(zone: string, at: Date): number {
  let clock = clocks.get(zone)
  if (!clock) clocks.set(zone, (clock = new Intl.DateTimeFormat('en-US', {timeZone: zone, hourCycle: 'h23', year: 'numeric', month: 'numeric', day: 'numeric', hour: 'numeric', minute: 'numeric', second: 'numeric'})))
  const parts = clock.formatToParts(at)
  const v = (type: string) => Number(parts.find((p) => p.type === type)!.value)
  const local = Date.UTC(v('year'), v('month') - 1, v('day'), v('hour'), v('minute'), v('second'))
  return Math.round((local - Math.floor(at.getTime() / 1000) * 1000) / 60000)
}

const pad = (n: number) => String(Math.abs(n)).padStart(2, '0')

/** The time zone at a point (boundaries shipped with @photostructure/tz-lookup, offline), as of `now`. */
export function timeZoneAt(lon: number, lat: number, now = new Date()): TimeZone | null {
  return zoneAt(lon, lat, now)?.zone ?? null
}

/** `timeZoneAt` as JSON text, for answers spliced from text. */
export function timeZoneText(lon: number, lat: number, now = new Date()): string | null {
  return zoneAt(lon, lat, now)?.json ?? null
}

function zoneAt(lon: number, lat: number, now: Date): {zone: TimeZone; json: string} | null {
  let id: string
  try {
    id = tzlookup(lat, lon)
  } catch {
    return null
  }
  const second = Math.floor(now.getTime() / 1000)
  const cached = latest.get(id)
  if (cached && cached.second === second) return cached
  let f = formats.get(id)
  if (!f) {
    f = {long: new Intl.DateTimeFormat('en-US', {timeZone: id, timeZoneName: 'long'}), short: new Intl.DateTimeFormat('en-US', {timeZone: id, timeZoneName: 'short'})}
    formats.set(id, f)
  }
  const zoneName = (fmt: Intl.DateTimeFormat, at: Date) => fmt.formatToParts(at).find((p) => p.type === 'timeZoneName')?.value ?? id
  const offset = offsetMinutes(id, now)
  const year = now.getUTCFullYear()
  // standard time is the smaller of January's and July's offsets
  const key = `${id}:${year}`
  let standard = standards.get(key)
  if (standard === undefined) {
    standard = Math.min(offsetMinutes(id, new Date(Date.UTC(year, 0, 1))), offsetMinutes(id, new Date(Date.UTC(year, 6, 1))))
    standards.set(key, standard)
  }
  const local = new Date(now.getTime() + offset * 60000)
  const sign = offset < 0 ? '-' : '+'
  const currentTime = `${local.toISOString().slice(0, 19)}${sign}${pad(Math.trunc(offset / 60))}:${pad(offset % 60)}`
  const zone = {id, name: zoneName(f.long, now), code: zoneName(f.short, now), currentTime, utcOffset: offset * 60, dstOffset: (offset - standard) * 60}
  const entry = {second, zone, json: JSON.stringify(zone)}
  latest.set(id, entry)
  return entry
}
