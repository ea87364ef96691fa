import type {Page} from '../store/paging.js'
import {JsonStream} from './send.js'

/** A list response stops before this many characters of items (docs/api.md); `hasMore` then says there is more. */
export const LIST_MAX_CHARS = 8 * 1024 * 1024

/**
 * Every list's answer, `{[name]: [...], meta: {code: 200, hasMore}}`, streamed: each chunk of rows
 * the page reads (50 a statement, a turn of the event loop apart) is rendered and written before
 * the next is read, so a page of 1,000 large polygons never lives whole in memory (it was ~80 MB
 * built on the event loop, and pages held across turns were what young-generation GC promoted
 * under load). `meta` comes last because `hasMore` is known last: the page stops before
 * LIST_MAX_CHARS of items (at least one item is always sent), and the next page starts after the
 * last item sent, as cursors do anyway.
 */
export function pageStream<T>(name: string, page: Page<T>, render: (rows: T[]) => string[] | Promise<string[]>): JsonStream {
  async function* parts() {
    yield `{"${name}":[`
    let chars = 0
    let count = 0
    let capped = false
    for await (const rows of page.rows) {
      let text = ''
      for (const item of await render(rows)) {
        if (count && chars + item.length > LIST_MAX_CHARS) {
          capped = true
          break
        }
        text += count ? `,${item}` : item
        chars += item.length + 1
        count++
      }
      if (text) yield text
      if (capped) break
    }
    yield `],"meta":{"code":200,"hasMore":${capped || page.hasMore}}}`
  }
  return new JsonStream(parts())
}
