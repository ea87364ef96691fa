import cluster, {type Worker} from 'node:cluster'
import type {Config} from '../config/index.js'

/** What a worker of `loc serve --workers N` tells its primary. */
type WorkerMessage = {ready: true} | {listening: string; store: string} | {stopping: true}

/** How often a stopping worker tells its primary it is still at it (its event loop turns). */
const STOPPING_BEAT_MS = 1000

/** A stop of `loc serve`: SIGINT, SIGTERM or, in a worker, the primary's stop message. */
export interface StopRequest {
  /** Resolves with what asked: the signal's name, or `stop`. */
  asked: Promise<string>
  requested(): boolean
}

/**
 * Listens for a stop from now on. A worker then tells its primary that it hears the stop message
 * (`ready`): a message sent before is emitted to no listener and lost.
 */
export function listenForStop(): StopRequest {
  let requested = false
  const asked = new Promise<string>((resolve) => {
    const stop = (why: string) => {
      if (!requested && cluster.isWorker) {
        // a stop may rightly take long (a sync run finishing its import): while its event loop
        // turns the worker says so, and the primary kills only a worker that went silent
        setInterval(() => process.connected && process.send!({stopping: true} satisfies WorkerMessage), STOPPING_BEAT_MS).unref()
      }
      requested = true
      resolve(why)
    }
    process.once('SIGINT', () => stop('SIGINT'))
    process.once('SIGTERM', () => stop('SIGTERM'))
    if (cluster.isWorker) {
      process.on('message', (m: {stop?: boolean}) => m?.stop && stop('stop'))
      process.send!({ready: true} satisfies WorkerMessage)
    }
  })
  return {asked, requested: () => requested}
}

/** In a worker: tells the primary where it serves. */
export function announceListening(url: string, store: string): void {
  process.send!({listening: url, store} satisfies WorkerMessage)
}

/** What the primary's patience with a silent stopping worker adds to its longest wait: closing its store and map files. */
const STOP_MARGIN_MS = 5000

/**
 * How long a stopping worker may go without a word before the primary kills it: a stopping worker
 * says it is still at it every second while its event loop turns (waiting for requests, a webhook
 * delivery in flight, a sync run's download and import), so silence means a loop held that long.
 * The longest such holds are the forced close after `server.shutdownTimeoutMs` and a delivery's
 * `webhooks.timeoutMs`; past both and a margin, the worker hangs.
 */
export const stopDeadlineMs = (config: Config): number => Math.max(config.server.shutdownTimeoutMs, config.webhooks.timeoutMs) + STOP_MARGIN_MS

export interface SupervisorOutput {
  log(line: string): void
  logToStderr(line: string): void
}

/**
 * The primary of `--workers N`: forks N copies of `loc serve`, which share the listening port
 * (the primary hands out connections) and the store (SQLite's write lock orders their
 * transactions, so per-device ordering and group commit hold across them); replaces a worker
 * that dies; once `stop` resolves, stops them all, each finishing its in-flight requests, and
 * forks no more; a stopping worker silent for `deadlineMs` is killed (SIGKILL). Resolves
 * with the exit code: 0 when stopped, 1 when a worker had to be killed, the workers' code when
 * `count` in a row died before any listened.
 */
export async function superviseWorkers(count: number, stop: Promise<unknown>, out: SupervisorOutput, deadlineMs: number): Promise<number> {
  let stopping = false
  let announced = false
  // workers that died before they listened, in a row: the next waits longer, and when none ever
  // listened, `count` of them end the start (a taken port would otherwise fork workers forever)
  let failed = 0
  const listened = new Set<number>()
  const hearing = new Set<number>()
  const replacing = new Set<NodeJS.Timeout>()
  let gaveUp: (code: number) => void
  const givenUp = new Promise<number>((resolve) => (gaveUp = resolve))
  const fork = () => {
    const worker = cluster.fork()
    worker.on('message', (message: WorkerMessage) => {
      if ('ready' in message) return void hearing.add(worker.id)
      if ('stopping' in message) return
      listened.add(worker.id)
      failed = 0
      if (announced || stopping) return
      announced = true
      out.log(`loc listening on ${message.listening} (${count} workers, store ${message.store})`)
    })
  }
  const replace = (worker: Worker, code: number, signal: string) => {
    hearing.delete(worker.id)
    if (stopping) return
    const early = !listened.delete(worker.id)
    failed = early ? failed + 1 : 0
    if (early && !announced && failed >= count) {
      out.logToStderr(`worker ${worker.process.pid} exited (${signal ?? code}); ${failed} workers failed to start, stopping`)
      return gaveUp(code || 1)
    }
    const delayMs = early ? Math.min(30_000, 1000 * 2 ** (failed - 1)) : 0
    out.logToStderr(`worker ${worker.process.pid} exited (${signal ?? code}); starting another${delayMs ? ` in ${delayMs / 1000} s` : ''}`)
    const timer = setTimeout(() => {
      replacing.delete(timer)
      fork()
    }, delayMs)
    replacing.add(timer)
  }
  cluster.on('exit', replace)
  for (let i = 0; i < count; i++) fork()
  const code = await Promise.race([stop.then(() => 0), givenUp])
  stopping = true
  for (const timer of replacing) clearTimeout(timer)
  const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined)
  const stopped = await Promise.all(workers.map((w) => stopWorker(w, hearing.has(w.id), deadlineMs, out)))
  cluster.off('exit', replace)
  return code || (stopped.every(Boolean) ? 0 : 1)
}

/**
 * A worker that hears the stop message gets it. One that does not yet is still starting and holds
 * nothing (no store, no request): SIGTERM ends it at once, or, if it began to listen for stops
 * meanwhile, stops it as the message would. One silent for `deadlineMs` (no word that it is still
 * stopping) hangs: it is killed, and the promise resolves false.
 */
function stopWorker(worker: Worker, hearing: boolean, deadlineMs: number, out: SupervisorOutput): Promise<boolean> {
  return new Promise((resolve) => {
    if (worker.isDead()) return resolve(true)
    let killed = false
    const deadline = setTimeout(() => {
      killed = true
      out.logToStderr(`worker ${worker.process.pid} hung while stopping (silent for ${deadlineMs / 1000} s); killed it (SIGKILL)`)
      worker.process.kill('SIGKILL')
    }, deadlineMs)
    const beat = (message: WorkerMessage) => 'stopping' in message && deadline.refresh()
    worker.on('message', beat)
    worker.once('exit', () => {
      clearTimeout(deadline)
      worker.off('message', beat)
      resolve(!killed)
    })
    // the callback takes the error of a channel that closed meanwhile: its exit follows
    if (hearing) worker.send({stop: true}, () => undefined)
    else worker.process.kill('SIGTERM')
  })
}
