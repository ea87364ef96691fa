import {Counter, Histogram, Registry, collectDefaultMetrics} from 'prom-client'

export interface Metrics {
  registry: Registry
  record(method: string, route: string, status: number, seconds: number): void
}

/** Prometheus metrics for one app: request counts and latency by route pattern, plus process metrics. */
export function createMetrics(): Metrics {
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
  return {
    registry,
    record(method, route, status, seconds) {
      requests.inc({method, route, status: String(status)})
      duration.observe({method, route}, seconds)
    },
  }
}
