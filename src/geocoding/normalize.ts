/**
 * Text → search tokens, applied alike to what the index holds and to what users type, so that
 * "12 Main St." and "12 main street", "Hauptstr. 5" and "hauptstrasse 5", "Côte" and "cote" meet.
 * Abbreviations expand to the full word (so a prefix of the full word still matches as one types).
 */
const EXPAND: Record<string, string> = {
  st: 'street', str: 'strasse', ave: 'avenue', av: 'avenue', avda: 'avenida', rd: 'road', bd: 'boulevard', bld: 'boulevard',
  blvd: 'boulevard', boul: 'boulevard', dr: 'drive', ln: 'lane', pl: 'place', sq: 'square', ct: 'court', cres: 'crescent',
  hwy: 'highway', pkwy: 'parkway', pky: 'parkway', tpke: 'turnpike', expy: 'expressway', ter: 'terrace', terr: 'terrace',
  cir: 'circle', plz: 'plaza', aly: 'alley', mt: 'mount', ft: 'fort', fwy: 'freeway', hts: 'heights', bch: 'beach',
  e: 'east', w: 'west', n: 'north', s: 'south', ne: 'northeast', nw: 'northwest', se: 'southeast', sw: 'southwest',
  rte: 'route', ch: 'chemin', imp: 'impasse', fbg: 'faubourg', sta: 'santa', sto: 'santo',
  apt: 'unit', ste: 'unit', suite: 'unit', '#': 'unit',
}

const STRASSE = /(str|strasse)$/

/** Lower case, no accents, ß → ss. */
export function fold(text: string): string {
  return text.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '').replace(/ß/g, 'ss').replace(/[æ]/g, 'ae').replace(/[œ]/g, 'oe').replace(/ø/g, 'o').replace(/ł/g, 'l')
}

/** One folded word → its canonical token. */
export function canonical(word: string): string {
  const ex = EXPAND[word]
  if (ex) return ex
  // 31st, 2nd, 3rd, 4th → 31, 2, 3, 4 ("W 31 St" and "West 31st Street" meet)
  const ord = /^(\d+)(st|nd|rd|th|e|er|eme)$/.exec(word)
  if (ord) return ord[1]
  // Hauptstr, Hauptstraße → hauptstrasse
  if (word.length > 4 && STRASSE.test(word) && !word.endsWith('strasse')) return word.replace(/str$/, 'strasse')
  return word
}

/** Search tokens of a text, in order. */
export function tokens(text: string): string[] {
  const out: string[] = []
  // Mark's → marks; l'Église, d'Italie → l eglise, d italie
  for (const raw of fold(text).replace(/['’`]s\b/g, 's').split(/[^\p{L}\p{N}#]+/u)) {
    if (!raw) continue
    // "12a" stays one token; "hauptstrasse12" does not happen in practice
    out.push(canonical(raw))
  }
  return out
}

/** A hyphenated house number as typed: Queens' "212-47A", a range "17-19". */
const HYPHENATED = /^\d+[a-z]?-\d+[a-z]?$/

/** Search tokens of what a user typed: as `tokens`, but a hyphenated house number stays one token, as `numberTokens` indexed it. */
export function queryTokens(text: string): string[] {
  const out: string[] = []
  for (const part of fold(text).split(/[\s,;]+/)) {
    if (HYPHENATED.test(part)) out.push(part)
    else if (part) out.push(...tokens(part))
  }
  return out
}

/** Tokens of a house number: "17-19" → 17-19, 17; "4B" → 4b, 4; "4 bis" → 4bis, 4. */
export function numberTokens(number: string): string[] {
  const n = fold(number).replace(/\s+/g, '')
  const out = new Set([n])
  // "1;3;5", "2,4": every number of the list
  for (const part of n.split(/[;,]/)) {
    const lead = /^\d+/.exec(part)?.[0]
    if (part) out.add(part)
    if (lead) out.add(lead)
  }
  return [...out]
}

/** Whether a query token looks like a house number (digits, maybe one letter or a range). */
export const isNumberLike = (t: string) => /^\d{1,6}[a-z]?$/.test(t) || HYPHENATED.test(t)

/** A comparable house number: its leading integer, NaN when it has none. */
export const numberValue = (n: string) => Number.parseInt(n, 10)
