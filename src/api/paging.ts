import {JsonText} from './send.js'

/** `{meta: {code: 200, hasMore}, [name]: items}` */
export function pageBody<T>(name: string, items: T[], hasMore: boolean) {
  return {meta: {code: 200, hasMore}, [name]: items}
}

/** A list response stops before this many characters of items (docs/api.md); `hasMore` then says there is more. */
export const LIST_MAX_CHARS = 8 * 1024 * 1024

/**
 * `{meta: {code: 200, hasMore}, [name]: [...]}` as text from items rendered one at a time, stopping
 * at LIST_MAX_CHARS (at least one item is always sent): a page of 1,000 large polygons would
 * otherwise be ~80 MB built on the event loop. The next page starts after the last item sent, as
 * cursors do anyway.
 */
export function pageText<T>(name: string, rows: T[], render: (row: T) => string, hasMore: boolean): JsonText {
  const parts: string[] = []
  let chars = 0
  for (const row of rows) {
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
