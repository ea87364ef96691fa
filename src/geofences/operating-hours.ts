/**
 * Operating hours: day of week → list of [open, close] pairs. Input keys are full or three-letter
 * day names in any case; times are `HH:mm` or `h:mm aa`. Stored and returned as three-letter
 * capitalised days in week order with `HH:mm` times: `{"Mon": [["09:00", "17:00"]]}`.
 * A close earlier than its open runs past midnight.
 */
export type OperatingHours = Record<string, Array<[string, string]>>

export const DAYS = ['Mon', 'Tue', 'Wed', 'Thu', 'Fri', 'Sat', 'Sun'] as const
const FULL = ['monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday', 'sunday']

/** A problem found while normalising: `path` is below `operatingHours` (e.g. `['monday', 0]`). */
export interface HoursProblem {
  path: Array<string | number>
  statement: string
}

export function dayKey(name: string): (typeof DAYS)[number] | null {
  const lower = name.trim().toLowerCase()
  const index = FULL.findIndex((full) => full === lower || full.slice(0, 3) === lower)
  return index === -1 ? null : DAYS[index]
}

/** `09:00`, `9:00`, `9:00 am`, `9:00PM` → `HH:mm`; null when it is none of those. */
export function normaliseTime(text: string): string | null {
  const m = /^\s*(\d{1,2}):(\d{2})\s*(am|pm|a\.m\.|p\.m\.)?\s*$/i.exec(text)
  if (!m) return null
  let hours = Number(m[1])
  const minutes = Number(m[2])
  const marker = m[3]?.toLowerCase().replace(/\./g, '')
  if (minutes > 59) return null
  if (marker) {
    if (hours < 1 || hours > 12) return null
    hours = (hours % 12) + (marker === 'pm' ? 12 : 0)
  } else if (hours > 24 || (hours === 24 && minutes !== 0)) {
    return null
  }
  return `${String(hours).padStart(2, '0')}:${String(minutes).padStart(2, '0')}`
}

export function normaliseHours(value: unknown): {hours: OperatingHours} | {problem: HoursProblem} {
  const pairsStatement = 'must be a list of [open, close] pairs in HH:mm or h:mm aa'
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    return {problem: {path: [], statement: 'must be a dictionary of day names (full or three-letter) to lists of [open, close] pairs'}}
  }
  const byDay = new Map<string, Array<[string, string]>>()
  for (const [name, pairs] of Object.entries(value)) {
    const day = dayKey(name)
    if (!day) return {problem: {path: [name], statement: 'must be a day name, full or three-letter (monday or mon), any case'}}
    if (byDay.has(day)) return {problem: {path: [name], statement: 'must name each day once'}}
    if (!Array.isArray(pairs)) return {problem: {path: [name], statement: pairsStatement}}
    const normalised: Array<[string, string]> = []
    for (const [i, pair] of pairs.entries()) {
      if (!Array.isArray(pair) || pair.length !== 2 || pair.some((t) => typeof t !== 'string')) {
        return {problem: {path: [name, i], statement: 'must be an [open, close] pair of times in HH:mm or h:mm aa'}}
      }
      const open = normaliseTime(pair[0])
      const close = normaliseTime(pair[1])
      if (!open || !close) return {problem: {path: [name, i], statement: 'must be an [open, close] pair of times in HH:mm or h:mm aa'}}
      if (open === close) return {problem: {path: [name, i], statement: 'must close at a different time than it opens'}}
      normalised.push([open, close])
    }
    byDay.set(day, normalised)
  }
  const hours: OperatingHours = {}
  for (const day of DAYS) if (byDay.has(day)) hours[day] = byDay.get(day)!
  return {hours}
}

const minutesOf = (hhmm: string) => Number(hhmm.slice(0, 2)) * 60 + Number(hhmm.slice(3, 5))

/**
 * Whether `hours` are open at `at`, read in the server's time zone (the `TZ` environment variable;
 * geofences carry no zone of their own). A pair that closes before it opens runs into the next day.
 */
export function isOperating(hours: OperatingHours, at: Date): boolean {
  const day = (at.getDay() + 6) % 7
  const t = at.getHours() * 60 + at.getMinutes()
  for (const [open, close] of hours[DAYS[day]] ?? []) {
    const o = minutesOf(open), c = minutesOf(close)
    if (o < c ? t >= o && t < c : t >= o) return true
  }
  for (const [open, close] of hours[DAYS[(day + 6) % 7]] ?? []) {
    if (minutesOf(close) < minutesOf(open) && t < minutesOf(close)) return true
  }
  return false
}
