import express, {type Express} from 'express'
import {createApi, type AppContext} from './router.js'
import {createMetrics} from './metrics.js'
import {corsFor} from './middleware/cors.js'
import {errorHandler, notFound} from './middleware/errors.js'
import {observe} from './middleware/observe.js'
import {routeGroups} from './routes/index.js'
import {sendJson} from './send.js'

export const VERSION = '0.1.0'

/** The HTTP app: cross-cutting middleware, `/health`, `/metrics`, then `/v1`; every error leaves as JSON. */
export function createApp(ctx: AppContext): Express {
  const {config, log} = ctx
  const app = express()
  app.disable('x-powered-by')
  app.set('etag', false)
  app.set('query parser', 'extended')
  app.set('trust proxy', config.server.trustProxy)

  const metrics = createMetrics()
  app.use(observe(log, metrics))
  app.use('/v1', corsFor(config.cors.origins))
  const limit = config.server.bodyLimitBytes
  const json = express.json({limit, type: ['application/json', 'application/*+json']})
  const form = express.urlencoded({limit, extended: true})
  // GETs carry no body (clients may still send Content-Type: application/json): skip the parsers
  app.use((req, res, next) => (req.method === 'GET' ? next() : json(req, res, (error?: unknown) => (error ? next(error) : form(req, res, next)))))

  app.get('/health', (_req, res) => {
    sendJson(res, 200, {meta: {code: 200}, status: 'ok', version: VERSION})
  })
  app.get('/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics())
  })

  const {api, router} = createApi(ctx)
  for (const register of routeGroups) register(api)
  app.use('/v1', router)

  app.use(notFound)
  app.use(errorHandler(log, limit))
  return app
}
