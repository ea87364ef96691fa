import type {ServerResponse} from 'node:http'

/** A JSON body already written as text (lists splice stored JSON instead of parsing it). */
export class JsonText {
  constructor(readonly text: string, readonly status = 200) {}
}

/**
 * Sends a JSON body as one string with its length: a string goes out with the header block in one
 * write, where a Buffer (as express's `res.json` hands Node) costs a second one.
 */
export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  sendText(res, status, JSON.stringify(body))
}

export function sendText(res: ServerResponse, status: number, text: string): void {
  res.statusCode = status
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Cache-Control', 'no-store')
  res.setHeader('Content-Length', Buffer.byteLength(text))
  res.end(text)
}

/** A JSON body written as it is produced: lists (api/paging.ts). */
export class JsonStream {
  constructor(readonly parts: AsyncIterable<string>) {}
}

/**
 * Sends a JsonStream as a chunked 200, each part written as it comes (waiting for the socket to
 * drain), so a page's text never lives whole in memory. A failure before the first row's part is
 * thrown for the caller to answer as an error; after it, the status is sent and the connection is
 * closed mid-body.
 */
export async function sendStream(res: ServerResponse, body: JsonStream): Promise<void> {
  const parts = body.parts[Symbol.asyncIterator]()
  // the opening and the first rows (or the close) before the status: a failing first read is an error answer
  const head: string[] = []
  for (let i = 0; i < 2; i++) {
    const next = await parts.next()
    if (next.done) break
    head.push(next.value)
  }
  res.statusCode = 200
  res.setHeader('Content-Type', 'application/json; charset=utf-8')
  res.setHeader('Cache-Control', 'no-store')
  let part: string | undefined = head.join('')
  while (part !== undefined) {
    if (part && !res.write(part)) await drained(res)
    if (res.destroyed) {
      await parts.return?.()
      return
    }
    const next = await parts.next()
    part = next.done ? undefined : next.value
  }
  res.end()
}

/** Resolves when the response can take more, or is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done)
      res.off('close', done)
      resolve()
    }
    res.on('drain', done)
    res.on('close', done)
  })
}
