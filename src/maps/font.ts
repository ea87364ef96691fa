import {createRequire} from 'node:module'
import path from 'node:path'
import {GlobalFonts, createCanvas} from '@napi-rs/canvas'

/** The labels' font family: Noto Sans from the @fontsource/noto-sans package, registered once. */
export const FONT = 'LocNotoSans'

let registered = false

export function registerFonts(): void {
  if (registered) return
  const dir = path.join(path.dirname(createRequire(import.meta.url).resolve('@fontsource/noto-sans/package.json')), 'files')
  for (const file of ['latin-400-normal', 'latin-400-italic', 'latin-500-normal', 'latin-600-normal', 'latin-700-normal', 'latin-ext-400-normal', 'latin-ext-700-normal', 'greek-400-normal', 'cyrillic-400-normal']) {
    GlobalFonts.registerFromPath(path.join(dir, `noto-sans-${file}.woff2`), FONT)
  }
  registered = true
}

/** Draws a little text in every face the map uses: a face's first use decodes its WOFF2 files (~10–20 ms each). */
export function warmFonts(): void {
  registerFonts()
  const g = createCanvas(64, 64).getContext('2d')
  for (const face of ['400', '500', 'italic 400', '600', '700']) {
    g.font = `${face} 11px ${FONT}`
    g.strokeText('Aé Ωω Жж', 0, 20)
    g.fillText('Aé Ωω Жж', 0, 20)
  }
}
