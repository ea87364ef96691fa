import {geofenceExpiryJob} from '../geofences/expiry.js'
import {changePruneJob} from '../store/prune.js'
import type {System} from '../system.js'
import {tripExpiryJob} from '../trips/expiry.js'
import {tripOrderJob} from '../trips/orders.js'

/** Work `loc serve` repeats on a timer. Each run must be idempotent and quick; errors are logged, never fatal. */
export interface Job {
  name: string
  everyMs: number
  run(system: System, now: Date): unknown
}

export const jobs: Job[] = [geofenceExpiryJob, tripExpiryJob, tripOrderJob, changePruneJob]

export interface Jobs {
  /** Clears the timers and waits for runs in progress. */
  stop(): Promise<void>
}

/** Starts every job on its interval with the running system. */
export function startJobs(system: System, list: Job[] = jobs): Jobs {
  const {log} = system
  const running = new Set<Promise<unknown>>()
  const timers = list.map((job) => {
    let busy = false
    const tick = () => {
      if (busy) return
      busy = true
      const run = Promise.resolve().then(() => job.run(system, new Date()))
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
