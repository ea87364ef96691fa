import {createServer, type Server} from 'node:http'
import express from 'express'
import {VERSION} from '../config/index.js'
import {deliveryMetricsText} from '../webhooks/metrics.js'
import {guard, serverOptions} from './guard.js'
import {createMetrics} from './metrics.js'
import {corsFor} from './middleware/cors.js'
import {errorHandler, errorSender, notFound} from './middleware/errors.js'
import {observer, type Observed} from './middleware/observe.js'
import {type AppContext, createApi} from './router.js'
import {routeGroups} from './routes/index.js'
import {staticMapRoutes} from './routes/static-map.js'
import {sendJson} from './send.js'

/**
 * The HTTP server: every request gets an id, metrics and a log line, and CORS on `/v1`; then the
 * API dispatcher (router.ts) takes `/v1` routes and express the rest (`/health`, `/metrics`, JSON
 * 404s). Every error leaves as JSON.
 */
export function createHttpServer(ctx: AppContext): Server {
  const {config, log} = ctx
  const metrics = createMetrics()
  const observe = observer(log, metrics)
  const cors = corsFor(config.cors.origins)
  const {api, handle, close} = createApi(ctx)
  for (const register of routeGroups) register(api)
  staticMapRoutes(api) // GET /maps/static, outside /v1

  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.set('trust proxy', config.server.trustProxy)
  app.get('/health', (_req, res) => {
    // the map regions served now: an import shows here without a restart
    sendJson(res, 200, {meta: {code: 200}, status: 'ok', version: VERSION, map: {regions: ctx.map.regions().map((r) => r.name)}})
  })
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.contentType).send(await metrics.text() + deliveryMetricsText(ctx.store))
  })
  app.use(notFound)
  app.use(errorHandler(errorSender(log, config.server.bodyLimitBytes)))

  const server = createServer(serverOptions(config), (req, res: Observed) => {
    const requestId = observe(req, res)
    if (req.url?.startsWith('/v1') && cors(req, res)) return
    if (!handle(req, res, requestId)) app(req, res)
  })
  guard(server, config, log)
  server.on('close', close)
  return server
}
