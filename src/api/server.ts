import type {Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {createHttpServer} from './app.js'
import type {AppContext} from './router.js'

export interface RunningServer {
  url: string
  port: number
  /** Stops accepting connections, lets in-flight requests finish (up to the shutdown timeout), then closes. */
  close(): Promise<void>
}

export async function startServer(ctx: AppContext): Promise<RunningServer> {
  const server: Server = createHttpServer(ctx)
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject)
    server.listen(ctx.config.port, ctx.config.host, () => {
      server.off('error', reject)
      resolve()
    })
  })
  const {port} = server.address() as AddressInfo
  const host = ctx.config.host.includes(':') ? `[${ctx.config.host}]` : ctx.config.host
  let closing: Promise<void> | undefined
  return {
    url: `http://${host}:${port}`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        const force = setTimeout(() => server.closeAllConnections(), ctx.config.server.shutdownTimeoutMs)
        force.unref()
        server.close(() => {
          clearTimeout(force)
          resolve()
        })
        server.closeIdleConnections()
      })
      return closing
    },
  }
}
