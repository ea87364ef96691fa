import {Registry, collectDefaultMetrics} from 'prom-client'

export interface Metrics {
  /** The Prometheus text of every metric. */
  text(): Promise<string>
  contentType: string
  record(method: string, route: string, status: number, seconds: number): void
}

const BUCKETS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5]

/** One method and route pattern: answers by status, and the latency histogram as flat counts. */
interface RouteSeries {
  labels: string
  byStatus: Map<number, number>
  buckets: Float64Array
  sum: number
  count: number
}

/**
 * Prometheus metrics: process metrics from prom-client, and request counts and latency by route
 * pattern kept here in flat arrays. Recording runs on every request, where prom-client hashed the
 * label set on each call (about 5 % of a trivial request's CPU); the text is built on scrape.
 */
export function createMetrics(): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({register: registry})
  const series = new Map<string, RouteSeries>()

  const render = () => {
    const lines = [
      '# HELP loc_http_requests_total HTTP requests answered',
      '# TYPE loc_http_requests_total counter',
    ]
    for (const s of series.values()) {
      for (const [status, n] of s.byStatus) lines.push(`loc_http_requests_total{${s.labels},status="${status}"} ${n}`)
    }
    lines.push('# HELP loc_http_request_duration_seconds HTTP request latency', '# TYPE loc_http_request_duration_seconds histogram')
    for (const s of series.values()) {
      let cumulative = 0
      BUCKETS.forEach((le, i) => {
        cumulative += s.buckets[i]
        lines.push(`loc_http_request_duration_seconds_bucket{${s.labels},le="${le}"} ${cumulative}`)
      })
      lines.push(`loc_http_request_duration_seconds_bucket{${s.labels},le="+Inf"} ${s.count}`)
      lines.push(`loc_http_request_duration_seconds_sum{${s.labels}} ${s.sum}`)
      lines.push(`loc_http_request_duration_seconds_count{${s.labels}} ${s.count}`)
    }
    return `${lines.join('\n')}\n`
  }

  return {
    contentType: registry.contentType,
    async text() {
      return `${await registry.metrics()}\n${render()}`
    },
    record(method, route, status, seconds) {
      const id = `${method} ${route}`
      let s = series.get(id)
      if (!s) series.set(id, (s = {labels: `method="${method}",route="${escapeLabel(route)}"`, byStatus: new Map(), buckets: new Float64Array(BUCKETS.length), sum: 0, count: 0}))
      s.byStatus.set(status, (s.byStatus.get(status) ?? 0) + 1)
      let i = 0
      while (i < BUCKETS.length && seconds > BUCKETS[i]) i++
      if (i < BUCKETS.length) s.buckets[i]++
      s.sum += seconds
      s.count++
    },
  }
}

const escapeLabel = (value: string) => value.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\n/g, '\\n')
