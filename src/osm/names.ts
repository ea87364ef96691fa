import type {Tags} from './pbf.js'

/** The `name:<lang>` tags of an object as JSON `{"en": "...", "fr": "..."}` (2- or 3-letter codes), or null. */
export function namesByLanguage(tags: Tags): string | null {
  let out: Record<string, string> | null = null
  for (const k in tags) {
    if (k.length < 7 || k.length > 8 || !k.startsWith('name:')) continue
    const lang = k.slice(5)
    if (!/^[a-z]{2,3}$/.test(lang)) continue
    ;(out ??= {})[lang] = tags[k]
  }
  return out && JSON.stringify(out)
}
