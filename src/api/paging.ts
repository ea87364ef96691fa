import {nextTurn} from '../store/turns.js'
import {JsonText} from './send.js'

/** A list response stops before this many characters of items (docs/api.md); `hasMore` then says there is more. */
export const LIST_MAX_CHARS = 8 * 1024 * 1024

/** Items rendered between two turns of the event loop: a page of 1,000 never holds it in one piece. */
const RENDER_SLICE = 50

/**
 * Every list's answer, `{meta: {code: 200, hasMore}, [name]: [...]}`, as text from items rendered one at a time, stopping
 * at LIST_MAX_CHARS (at least one item is always sent): a page of 1,000 large polygons would
 * otherwise be ~80 MB built on the event loop. Renders RENDER_SLICE items per event-loop turn, so
 * other requests are answered between slices. The next page starts after the last item sent, as
 * cursors do anyway.
 */
export async function pageText<T>(name: string, rows: T[], render: (row: T) => string, hasMore: boolean): Promise<JsonText> {
  const parts: string[] = []
  let chars = 0
  for (const row of rows) {
    if (parts.length && parts.length % RENDER_SLICE === 0) await nextTurn()
    const text = render(row)
    if (parts.length && chars + text.length > LIST_MAX_CHARS) {
      hasMore = true
      break
    }
    parts.push(text)
    chars += text.length + 1
  }
  return new JsonText(`{"meta":{"code":200,"hasMore":${hasMore}},"${name}":[${parts.join(',')}]}`)
}
