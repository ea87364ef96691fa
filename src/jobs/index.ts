import type {Logger} from '../log.js'
import type {Store} from '../store/db.js'
import {geofenceExpiryJob} from '../geofences/expiry.js'
import {tripExpiryJob} from '../trips/expiry.js'

/** Work `loc serve` repeats on a timer. Each run must be idempotent and quick; errors are logged, never fatal. */
export interface Job {
  name: string
  everyMs: number
  run(store: Store, now: Date): Promise<unknown>
}

export const jobs: Job[] = [geofenceExpiryJob, tripExpiryJob]

/** Starts every job on its interval; `stop()` clears the timers and waits for runs in progress. */
export function startJobs(store: Store, log: Logger, list: Job[] = jobs): {stop(): Promise<void>} {
  const running = new Set<Promise<unknown>>()
  const timers = list.map((job) => {
    let busy = false
    const tick = () => {
      if (busy) return
      busy = true
      const run = job.run(store, new Date())
        .then((result) => result && log.info({job: job.name, result}, 'job ran'))
        .catch((err) => log.error({job: job.name, err}, 'job failed'))
        .finally(() => {
          busy = false
          running.delete(run)
        })
      running.add(run)
    }
    const timer = setInterval(tick, job.everyMs)
    timer.unref()
    return timer
  })
  return {
    async stop() {
      for (const timer of timers) clearInterval(timer)
      await Promise.all(running)
    },
  }
}
