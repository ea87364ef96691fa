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
