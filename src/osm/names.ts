import type {Tags} from './pbf.js'

/** The other names an object goes by, besides `name:<lang>`: searchable, never answered for a language. */
export const OTHER_NAME_KEYS = ['alt_name', 'old_name', 'official_name', 'short_name', 'loc_name'] as const

/** The `name:<lang>` tags of an object as JSON `{"en": "...", "fr": "..."}` (2- or 3-letter codes), or null. */
export function namesByLanguage(tags: Tags): string | null {
  const out = languageNames(tags)
  return out && JSON.stringify(out)
}

/** `namesByLanguage` and the object's other names (`alt_name`, `old_name`... under their tag), or null. */
export function allNames(tags: Tags): string | null {
  let out = languageNames(tags)
  for (const k of OTHER_NAME_KEYS) if (tags[k]) (out ??= {})[k] = tags[k]
  return out && JSON.stringify(out)
}

function languageNames(tags: Tags): Record<string, string> | null {
  let out: Record<string, string> | null = null
  for (const k in tags) {
    if (k.length < 7 || k.length > 8 || !k.startsWith('name:')) continue
    const lang = k.slice(5)
    if (!/^[a-z]{2,3}$/.test(lang)) continue
    ;(out ??= {})[lang] = tags[k]
  }
  return out
}
