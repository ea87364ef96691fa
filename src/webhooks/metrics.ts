import type {Store} from '../store/db.js'

const BUCKETS = [0.005, 0.01, 0.02, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10, 60, 600, 3600, 86400]

/** What this process's delivery workers did since it started; the owed counts are read from the store on scrape. */
export interface DeliveryStats {
  /** Deliveries acknowledged (a batch request counts each event). */
  delivered: number
  /** Attempts that failed (each will be retried or dead-lettered). */
  failed: number
  dead: number
  /** Event-to-acknowledgement latency in seconds: counts per bucket of BUCKETS. */
  buckets: Float64Array
  sum: number
  recordDelivered(seconds: number): void
}

const stats = new WeakMap<Store, DeliveryStats>()

export function deliveryStats(store: Store): DeliveryStats {
  let s = stats.get(store)
  if (!s) {
    const created: DeliveryStats = {
      delivered: 0, failed: 0, dead: 0, buckets: new Float64Array(BUCKETS.length), sum: 0,
      recordDelivered(seconds) {
        created.delivered++
        created.sum += seconds
        let i = 0
        while (i < BUCKETS.length && seconds > BUCKETS[i]) i++
        if (i < BUCKETS.length) created.buckets[i]++
      },
    }
    stats.set(store, (s = created))
  }
  return s
}

/** Prometheus text: counters of this process, owed and dead deliveries in the store, the latency histogram. */
export function deliveryMetricsText(store: Store): string {
  const s = deliveryStats(store)
  const counts = {pending: 0, failed: 0, dead: 0}
  const rows = store.sqlite.prepare("SELECT status, count(*) AS n FROM webhook_outbox WHERE status IN ('pending', 'failed', 'dead') GROUP BY status").all() as Array<{status: keyof typeof counts; n: number}>
  for (const row of rows) counts[row.status] = row.n
  const lines = [
    '# HELP loc_webhook_deliveries_total Webhook deliveries acknowledged by receivers (this process)',
    '# TYPE loc_webhook_deliveries_total counter',
    `loc_webhook_deliveries_total ${s.delivered}`,
    '# HELP loc_webhook_failed_attempts_total Webhook delivery attempts that failed (this process)',
    '# TYPE loc_webhook_failed_attempts_total counter',
    `loc_webhook_failed_attempts_total ${s.failed}`,
    '# HELP loc_webhook_dead_total Webhook deliveries dead-lettered after the last retry (this process)',
    '# TYPE loc_webhook_dead_total counter',
    `loc_webhook_dead_total ${s.dead}`,
    '# HELP loc_webhook_outbox Webhook deliveries in the store by status: pending (never tried), failed (retry scheduled), dead',
    '# TYPE loc_webhook_outbox gauge',
    ...Object.entries(counts).map(([status, n]) => `loc_webhook_outbox{status="${status}"} ${n}`),
    '# HELP loc_webhook_delivery_latency_seconds From the event to the receiver\'s acknowledgement',
    '# TYPE loc_webhook_delivery_latency_seconds histogram',
  ]
  let cumulative = 0
  BUCKETS.forEach((le, i) => {
    cumulative += s.buckets[i]
    lines.push(`loc_webhook_delivery_latency_seconds_bucket{le="${le}"} ${cumulative}`)
  })
  lines.push(`loc_webhook_delivery_latency_seconds_bucket{le="+Inf"} ${s.delivered}`)
  lines.push(`loc_webhook_delivery_latency_seconds_sum ${s.sum}`, `loc_webhook_delivery_latency_seconds_count ${s.delivered}`)
  return `${lines.join('\n')}\n`
}
