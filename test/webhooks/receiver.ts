import {createServer, type IncomingHttpHeaders, type Server} from 'node:http'
import type {AddressInfo} from 'node:net'

export interface Received {
  headers: IncomingHttpHeaders
  body: string
  json: any
  at: number
}

export interface Receiver {
  url: string
  port: number
  received: Received[]
  /** The status to answer with, per request (default 200); a promise holds the answer back. */
  answer: (r: Received) => number | Promise<number>
  /** Resolves once `n` requests were acknowledged with a 2xx. */
  acked(n: number, timeoutMs?: number): Promise<Received[]>
  close(): Promise<void>
  /** Forgets what was received. */
  reset(): void
  /** Stops listening (connections refused) and listens again on the same port. */
  down(): Promise<void>
  up(): Promise<void>
}

/** A real HTTP receiver on 127.0.0.1 recording every request, as a customer's backend would see them. */
export async function startReceiver(port = 0): Promise<Receiver> {
  const received: Received[] = []
  const ok: Received[] = []
  let waiters: Array<() => void> = []
  let server: Server
  const listen = (p: number) => new Promise<Server>((resolve, reject) => {
    const s = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c) => chunks.push(c))
      req.on('end', async () => {
        const body = Buffer.concat(chunks).toString('utf8')
        const r: Received = {headers: req.headers, body, json: JSON.parse(body), at: Date.now()}
        received.push(r)
        const status = await receiver.answer(r)
        if (res.destroyed) return
        if (status >= 200 && status < 300) ok.push(r)
        res.writeHead(status, {'content-type': 'text/plain'}).end('ok')
        for (const w of waiters) w()
      })
    })
    s.once('error', reject)
    s.listen(p, '127.0.0.1', () => resolve(s))
  })
  server = await listen(port)
  const actual = (server.address() as AddressInfo).port
  const receiver: Receiver = {
    url: `http://127.0.0.1:${actual}`,
    port: actual,
    received,
    answer: () => 200,
    acked(n, timeoutMs = 10_000) {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (ok.length >= n) {
            waiters = waiters.filter((w) => w !== check)
            clearTimeout(timer)
            resolve(ok.slice())
          }
        }
        const timer = setTimeout(() => reject(new Error(`receiver got ${ok.length} of ${n} acknowledged requests in ${timeoutMs} ms`)), timeoutMs)
        waiters.push(check)
        check()
      })
    },
    reset() {
      received.length = 0
      ok.length = 0
    },
    async close() {
      server.closeAllConnections()
      await new Promise((resolve) => server.close(resolve))
    },
    async down() {
      await receiver.close()
    },
    async up() {
      server = await listen(actual)
    },
  }
  return receiver
}
