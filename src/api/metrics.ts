import type {RequestHandler} from 'express'
import {Counter, Histogram, Registry, collectDefaultMetrics} from 'prom-client'

/** Prometheus metrics for one app: request counts and latency by route pattern, plus process metrics. */
export function createMetrics() {
  const registry = new Registry()
  collectDefaultMetrics({register: registry})
  const requests = new Counter({name: 'loc_http_requests_total', help: 'HTTP requests answered', labelNames: ['method', 'route', 'status'], registers: [registry]})
  const duration = new Histogram({
    name: 'loc_http_request_duration_seconds',
    help: 'HTTP request latency',
    labelNames: ['method', 'route'],
    buckets: [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
    registers: [registry],
  })
  const observe: RequestHandler = (req, res, next) => {
    const start = process.hrtime.bigint()
    res.on('finish', () => {
      // the route pattern, never the raw path: ids would explode the label set
      const route = req.route ? req.baseUrl + String(req.route.path) : 'unmatched'
      const seconds = Number(process.hrtime.bigint() - start) / 1e9
      requests.inc({method: req.method, route, status: String(res.statusCode)})
      duration.observe({method: req.method, route}, seconds)
    })
    next()
  }
  return {registry, observe}
}
