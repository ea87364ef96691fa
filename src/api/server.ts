import type {Server} from 'node:http'
import type {AddressInfo} from 'node:net'
import {refuse} from '../errors.js'
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
    const failed = (error: NodeJS.ErrnoException) => reject(listenRefusal(error, ctx.config.host, ctx.config.port) ?? error)
    server.once('error', failed)
    server.listen(ctx.config.port, ctx.config.host, () => {
      server.off('error', failed)
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

/** A host that is not this machine's, a port taken or not ours to bind, as the refusal the CLI prints (the raw error says neither what nor how). */
function listenRefusal(error: NodeJS.ErrnoException, host: string, port: number) {
  if (error.code === 'EADDRINUSE') return refuse.invalid('port', `${port} on ${host} is in use (another loc serve?): choose another with --port or LOC_PORT`)
  if (error.code === 'ENOTFOUND' || error.code === 'EAI_AGAIN') return refuse.invalid('host', `${host} does not resolve to an address: give an address of this machine with --host or LOC_HOST`)
  if (error.code === 'EADDRNOTAVAIL') return refuse.invalid('host', `${host} is not an address of this machine: give one of its addresses (or 0.0.0.0) with --host or LOC_HOST`)
  if (error.code === 'EACCES') return refuse.invalid('port', `${port} on ${host} may not be bound by this user (ports below 1024 need privileges): choose another with --port or LOC_PORT`)
  return undefined
}
