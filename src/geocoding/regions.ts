/** Names and codes the map data does not carry: countries (ICU), US states and Canadian provinces. */

const US: Record<string, string> = {
  AL: 'Alabama', AK: 'Alaska', AZ: 'Arizona', AR: 'Arkansas', CA: 'California', CO: 'Colorado', CT: 'Connecticut', DE: 'Delaware',
  DC: 'District of Columbia', FL: 'Florida', GA: 'Georgia', HI: 'Hawaii', ID: 'Idaho', IL: 'Illinois', IN: 'Indiana', IA: 'Iowa',
  KS: 'Kansas', KY: 'Kentucky', LA: 'Louisiana', ME: 'Maine', MD: 'Maryland', MA: 'Massachusetts', MI: 'Michigan', MN: 'Minnesota',
  MS: 'Mississippi', MO: 'Missouri', MT: 'Montana', NE: 'Nebraska', NV: 'Nevada', NH: 'New Hampshire', NJ: 'New Jersey',
  NM: 'New Mexico', NY: 'New York', NC: 'North Carolina', ND: 'North Dakota', OH: 'Ohio', OK: 'Oklahoma', OR: 'Oregon',
  PA: 'Pennsylvania', RI: 'Rhode Island', SC: 'South Carolina', SD: 'South Dakota', TN: 'Tennessee', TX: 'Texas', UT: 'Utah',
  VT: 'Vermont', VA: 'Virginia', WA: 'Washington', WV: 'West Virginia', WI: 'Wisconsin', WY: 'Wyoming', PR: 'Puerto Rico',
}
const CA: Record<string, string> = {
  AB: 'Alberta', BC: 'British Columbia', MB: 'Manitoba', NB: 'New Brunswick', NL: 'Newfoundland and Labrador', NS: 'Nova Scotia',
  NT: 'Northwest Territories', NU: 'Nunavut', ON: 'Ontario', PE: 'Prince Edward Island', QC: 'Quebec', SK: 'Saskatchewan', YT: 'Yukon',
}
const STATES: Record<string, Record<string, string>> = {US, CA}
const byName = new Map<string, string>()
for (const [cc, table] of Object.entries(STATES)) for (const [code, name] of Object.entries(table)) byName.set(`${cc}:${name.toLowerCase()}`, code)
byName.set('CA:québec', 'QC')

/** {state, stateCode} from a name or a code as tagged (`NY`, `New York`, `Ny`), for US and CA; else the name as given. */
export function stateOf(country: string | null, value: string | null): {state: string | null; stateCode: string | null} {
  if (!value) return {state: null, stateCode: null}
  const table = country ? STATES[country] : undefined
  if (!table) return {state: value, stateCode: null}
  const upper = value.trim().toUpperCase()
  if (table[upper]) return {state: table[upper], stateCode: upper}
  const code = byName.get(`${country}:${value.trim().toLowerCase()}`)
  return code ? {state: table[code], stateCode: code} : {state: value, stateCode: null}
}

const names = new Intl.DisplayNames(['en'], {type: 'region'})
const nameOf = new Map<string, string | null>()
const flagOf = new Map<string, string | null>()

export function countryName(code: string | null): string | null {
  if (!code) return null
  let name = nameOf.get(code)
  if (name === undefined) {
    try {
      name = names.of(code) ?? null
    } catch {
      name = null
    }
    if (nameOf.size < 1000) nameOf.set(code, name)
  }
  return name
}

/** The flag emoji of an ISO 3166-1 alpha-2 code. */
export function countryFlag(code: string | null): string | null {
  if (!code) return null
  let flag = flagOf.get(code)
  if (flag === undefined) {
    flag = /^[A-Z]{2}$/.test(code) ? String.fromCodePoint(...[...code].map((c) => 0x1f1a5 + c.charCodeAt(0))) : null
    if (flagOf.size < 1000) flagOf.set(code, flag)
  }
  return flag
}
