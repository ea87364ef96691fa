import {randomBytes} from 'node:crypto'
import {CompiledQuery} from 'kysely'
import os from 'node:os'
import type {Config} from '../config/index.js'
import type {EventRow} from '../events/json.js'
import {readEvent} from '../events/parts.js'
import type {Logger} from '../log.js'
import type {Store} from '../store/db.js'
import {type Tx, write, writeGrouped} from '../store/write.js'
import {deliveryStats} from './metrics.js'
import {BATCH_SIZE, deliveryBody} from './payload.js'
import {enabledWebhooks, type Webhook, webhookSecret} from './registry.js'
import {nextAttemptAt} from './schedule.js'
import {createSender, type SendResult} from './sender.js'
import {onDeliveriesOwed} from './signal.js'
import {signatureHeaders} from './signing.js'

export interface DeliveryWorker {
  /** Stops claiming, lets requests in flight finish (bounded by the timeout) and records them. */
  stop(): Promise<void>
}

/** An owed delivery with its event (null when the event was deleted before it went out). */
interface OwedRow {
  id: number
  attempts: number
  next_attempt_at: string
  lease_until: string | null
  lease_owner: string | null
  created_at: string
  event: EventRow | null
}

/** A webhook's claimed deliveries: requests sent one after another, each of one or more rows (a batch). */
interface Claim {
  webhook: Webhook
  requests: OwedRow[][]
  leaseUntil: number
}

/** What became of a claim: delivered rows, the request that failed (the rest waits behind it), rows not sent. */
interface Outcome {
  webhook: Webhook
  delivered: OwedRow[]
  failed?: {rows: OwedRow[]; result: SendResult}
  unsent: OwedRow[]
}

/**
 * A non-batch webhook's owed deliveries claimed at once and sent one after another: the acks of a
 * window are recorded in one transaction instead of one each (a crash mid-window re-sends at most
 * this many acknowledged deliveries).
 */
const WINDOW = 16

const OWED = `SELECT o.id, o.attempts, o.next_attempt_at, o.lease_until, o.lease_owner, o.created_at,
    e.id AS e_id, e.live AS e_live, e.type AS e_type, e.user_ref AS e_user_ref, e.user_id AS e_user_id,
    e.payload AS e_payload, e.created_at AS e_created_at, e.actual_created_at AS e_actual_created_at, e.parts AS e_parts, e.parts_at AS e_parts_at
  FROM webhook_outbox o LEFT JOIN events e ON e.id = o.event_id
  WHERE o.webhook_id = ? AND o.status IN ('pending', 'failed') ORDER BY o.id LIMIT ?`
const LEASE = 'UPDATE webhook_outbox SET lease_until = ?, lease_owner = ? WHERE id = ?'
const RELEASE = 'UPDATE webhook_outbox SET lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?'
const DELIVERED = `UPDATE webhook_outbox SET status = 'delivered', attempts = attempts + 1, delivered_at = ?, last_error = NULL,
  lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?`
const FAILED = `UPDATE webhook_outbox SET status = ?, attempts = attempts + 1, next_attempt_at = ?, last_error = ?,
  lease_until = NULL, lease_owner = NULL WHERE id = ? AND lease_owner = ?`

/**
 * The delivery worker of one process (started by `serve`, src/system.ts). Deliveries are ordered
 * per webhook: a webhook's next delivery goes out only after the one before it was acknowledged or
 * dead-lettered, so at most one request per webhook is in flight, and up to `concurrency` webhooks
 * are served at once. Each pass is one group-committed write: it records the answers that came in
 * since the last pass and claims the next deliveries with a lease (`lease_owner`, `lease_until`),
 * so workers in other processes on the same store skip them until the lease ends.
 *
 * It wakes when this process records events that owe deliveries (signal.ts), when a retry falls
 * due, and every `pollMs` to find deliveries other processes wrote (replays, other servers).
 * Delivery is at least once: a crash after the receiver answered and before the answer is
 * recorded sends the delivery again after the lease; receivers drop duplicates by event `_id`.
 */
export function startDeliveries(system: {config: Config; store: Store; log: Logger}): DeliveryWorker {
  const {store, log} = system
  const options = system.config.webhooks
  const owner = `${os.hostname()}/${process.pid}/${randomBytes(4).toString('hex')}`
  const sender = createSender(options)
  const stats = deliveryStats(store)
  const secrets = secretCache(store)
  /** Webhooks with a request in flight. */
  const inFlight = new Set<string>()
  /** When to look at a webhook's deliveries again (ms); Infinity: nothing owed when last looked. */
  const nextLook = new Map<string, number>()
  const completions: Outcome[] = []
  const sending = new Set<Promise<void>>()
  let stopping = false
  let stopped = false
  let scheduled = false
  let timer: NodeJS.Timeout | undefined
  let lastPoll = 0
  let first = 0
  /**
   * The pass under way, its write waiting its turn in group commit (behind another process's write
   * lock, say): passes never overlap, so no delivery is claimed twice by this worker.
   */
  let running: Promise<void> | undefined

  const schedule = () => {
    if (scheduled) return
    scheduled = true
    if (!running) setImmediate(pass)
  }

  function pass(): void {
    scheduled = false
    if (stopped || running) return
    const now = Date.now()
    if (now - lastPoll >= options.pollMs) {
      lastPoll = now
      forgetIdle()
    }
    // nothing to record and no webhook to serve (most stores): no write at all
    if (!completions.length && (stopping || enabledWebhooks(store).length === 0)) {
      if (!stopping) arm(now + options.pollMs)
      return
    }
    let done: Outcome[] = []
    running = writeGrouped(store, (tx) => {
      // what is known when the write runs, however long it waited for its turn: a request answered
      // meanwhile must be recorded before its webhook is claimed again, or its rows, still leased
      // to this worker, would be sent twice; leases start from now too
      const at = Date.now()
      done = completions.splice(0)
      for (const c of done) record(tx, c, at)
      return {at, claims: stopping ? [] : claim(tx, at)}
    }).then(({at, claims}) => {
      for (const c of claims) send(c)
      if (!stopping) arm(Math.min(at + options.pollMs, ...[...nextLook.values()].filter((t) => t > at)))
    }, (error) => {
      // the store was busy past its timeout (another process writing): keep the answers, try again
      completions.unshift(...done)
      log.error({err: error}, 'webhook delivery pass failed; retrying')
      if (!stopping) arm(Date.now() + 1000)
    }).finally(() => {
      running = undefined
      if (scheduled) setImmediate(pass)
    })
  }

  /** Until no request is in flight and no pass is under way. */
  const settled = async () => {
    while (sending.size || running) await Promise.allSettled([...sending, running])
  }

  const arm = (at: number) => {
    clearTimeout(timer)
    timer = setTimeout(schedule, Math.max(0, at - Date.now()))
    timer.unref()
  }

  /** Webhooks found idle may have been owed deliveries since (another process, a replay): look again. */
  const forgetIdle = () => {
    for (const [id, at] of nextLook) if (at === Infinity) nextLook.delete(id)
  }

  function claim(tx: Tx, now: number): Claim[] {
    const nowIso = new Date(now).toISOString()
    const leaseUntil = new Date(now + options.leaseMs).toISOString()
    const claims: Claim[] = []
    const webhooks = enabledWebhooks(store)
    // start each pass one further along, so with more webhooks than `concurrency` none starves
    first = (first + 1) % Math.max(1, webhooks.length)
    for (let k = 0; k < webhooks.length; k++) {
      const webhook = webhooks[(first + k) % webhooks.length]
      if (inFlight.size + claims.length >= options.concurrency) break
      if (inFlight.has(webhook.id) || (nextLook.get(webhook.id) ?? 0) > now) continue
      const rows = tx.all<Record<string, unknown>>(CompiledQuery.raw(OWED, [webhook.id, webhook.batch ? BATCH_SIZE : WINDOW])).map((r) => owedRow(store, r))
      const head = rows[0]
      if (!head) {
        nextLook.set(webhook.id, Infinity)
        continue
      }
      if (head.lease_until && head.lease_until > nowIso && head.lease_owner !== owner) {
        nextLook.set(webhook.id, Date.parse(head.lease_until))
        continue
      }
      if (head.next_attempt_at > nowIso) {
        nextLook.set(webhook.id, Date.parse(head.next_attempt_at))
        continue
      }
      nextLook.delete(webhook.id)
      let requests: OwedRow[][]
      if (webhook.batch) {
        // a batch carries the events of one user in a row, as the hosted original's batches do,
        // and a failed one only once its own retry is due: one that joined a failing batch late
        // is not sent again at the head's time before its own backoff ran (it would use up its
        // attempts faster than the schedule says); it and those after it head a later batch
        const user = head.event?.user_ref ?? head.event?.user_id
        const picked = [head]
        for (const row of rows.slice(1)) {
          if (!row.event || !head.event || (row.event.user_ref ?? row.event.user_id) !== user) break
          if (row.attempts > 0 && row.next_attempt_at > nowIso) break
          picked.push(row)
        }
        requests = [picked]
      } else {
        requests = rows.filter((row) => row === head || row.next_attempt_at <= nowIso).map((row) => [row])
      }
      for (const request of requests) for (const row of request) tx.run(CompiledQuery.raw(LEASE, [leaseUntil, owner, row.id]))
      claims.push({webhook, requests, leaseUntil: now + options.leaseMs})
    }
    return claims
  }

  function send({webhook, requests, leaseUntil}: Claim): void {
    inFlight.add(webhook.id)
    const outcome: Outcome = {webhook, delivered: [], unsent: []}
    const work = (async () => {
      for (let i = 0; i < requests.length; i++) {
        // each request must end inside the lease (leaseMs > timeoutMs covers the first), or another
        // worker may send the same delivery
        if (i > 0 && (stopping || Date.now() + options.timeoutMs > leaseUntil)) {
          outcome.unsent = requests.slice(i).flat()
          return
        }
        const result = await sendOne(webhook, requests[i])
        if (result.ok) {
          outcome.delivered.push(...requests[i])
        } else {
          outcome.failed = {rows: requests[i], result}
          outcome.unsent = requests.slice(i + 1).flat()
          return
        }
      }
    })().catch((error: Error) => {
      log.error({err: error, webhook: webhook.id}, 'webhook delivery failed unexpectedly')
      const done = new Set(outcome.delivered)
      outcome.unsent = requests.flat().filter((row) => !done.has(row))
    }).finally(() => {
      inFlight.delete(webhook.id)
      completions.push(outcome)
      sending.delete(work)
      schedule()
    })
    sending.add(work)
  }

  async function sendOne(webhook: Webhook, rows: OwedRow[]): Promise<SendResult> {
    const events = rows.map((r) => r.event).filter((e): e is EventRow => e !== null)
    if (events.length === 0) return {ok: false, status: 0, error: EVENT_GONE}
    const secret = secrets.of(webhook.id)
    if (secret === undefined) return {ok: false, status: 0, error: 'webhook removed'}
    const body = deliveryBody(events, webhook.batch)
    return sender.send(webhook.url, body, signatureHeaders(secret, body))
  }

  function record(tx: Tx, {webhook, delivered, failed, unsent}: Outcome, now: number): void {
    const nowIso = new Date(now).toISOString()
    // only while the lease is ours: past it another worker may have sent and recorded it
    for (const row of delivered) {
      if (tx.run(CompiledQuery.raw(DELIVERED, [nowIso, row.id, owner]))) stats.recordDelivered((now - Date.parse(row.created_at)) / 1000)
    }
    for (const row of unsent) tx.run(CompiledQuery.raw(RELEASE, [row.id, owner]))
    if (!failed) return
    const {rows, result} = failed
    // each row of a batch counts its own attempts: one that joined the batch late is not
    // dead-lettered with the head but stays owed on its own schedule (and heads the next batch)
    let dead = 0
    let nextHead: number | undefined
    // one jitter per request: events that failed together at the same delay stay due together
    const jitter = Math.random()
    for (const row of rows) {
      const next = result.error === EVENT_GONE ? null : nextAttemptAt(options.retryDelaysMs, row.attempts + 1, now, () => jitter)
      if (next === null) dead++
      else nextHead ??= next
      tx.run(CompiledQuery.raw(FAILED, [next === null ? 'dead' : 'failed', new Date(next ?? now).toISOString(), result.error ?? 'failed', row.id, owner]))
    }
    stats.failed++
    stats.dead += dead
    if (nextHead !== undefined) nextLook.set(webhook.id, nextHead)
    // the origin only: a receiver's path or query may carry its own tokens
    log.warn({webhook: webhook.id, to: new URL(webhook.url).origin, deliveries: rows.map((r) => r.id), attempts: rows.map((r) => r.attempts + 1), dead, error: result.error}, 'webhook delivery failed')
  }

  releaseDeadLocalLeases(store, log)
  const unsubscribe = onDeliveriesOwed(store, () => {
    forgetIdle()
    schedule()
  })
  schedule()

  return {
    async stop() {
      stopping = true
      unsubscribe()
      clearTimeout(timer)
      await settled()
      if (completions.length) pass()
      await settled()
      stopped = true
      await sender.close()
    },
  }
}

const EVENT_GONE = 'event deleted before delivery'

/** Signing secrets by webhook, read once and read again whenever a webhook changes (a rotated secret). */
function secretCache(store: Store): {of(id: string): string | undefined} {
  const cache = new Map<string, string | undefined>()
  let position = -1
  return {
    of(id) {
      store.feed.catchUp()
      if (store.feed.position() !== position) {
        cache.clear()
        position = store.feed.position()
      }
      if (!cache.has(id)) cache.set(id, webhookSecret(store, id))
      return cache.get(id)
    },
  }
}

function owedRow(store: Store, r: Record<string, unknown>): OwedRow {
  return {
    id: r.id as number, attempts: r.attempts as number, next_attempt_at: r.next_attempt_at as string,
    lease_until: r.lease_until as string | null, lease_owner: r.lease_owner as string | null, created_at: r.created_at as string,
    event: r.e_id === null ? null : readEvent(store, {
      id: r.e_id as string, live: r.e_live as number, type: r.e_type as string, user_ref: r.e_user_ref as string | null,
      user_id: r.e_user_id as string | null, payload: r.e_payload as string, created_at: r.e_created_at as string,
      actual_created_at: r.e_actual_created_at as string, parts: r.e_parts as string | null, parts_at: r.e_parts_at as number | null,
    }),
  }
}

/**
 * Leases held by processes of this host that are gone (a `kill -9`, a crash) are released at once
 * rather than after they expire, so a restarted server resumes delivering immediately.
 */
function releaseDeadLocalLeases(store: Store, log: Logger): void {
  const host = os.hostname()
  const owners = store.sqlite.prepare('SELECT DISTINCT lease_owner FROM webhook_outbox WHERE lease_owner IS NOT NULL').pluck().all() as string[]
  const dead = owners.filter((o) => {
    const [h, pid] = o.split('/')
    return h === host && !alive(Number(pid))
  })
  if (dead.length === 0) return
  const released = write(store, (tx) => dead.reduce((n, o) =>
    n + tx.run(store.db.updateTable('webhook_outbox').set({lease_until: null, lease_owner: null}).where('lease_owner', '=', o)), 0))
  log.info({released}, 'released webhook deliveries claimed by a process that is gone')
}

function alive(pid: number): boolean {
  if (!Number.isInteger(pid) || pid <= 0) return false
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as {code?: string}).code === 'EPERM'
  }
}
