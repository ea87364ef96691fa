import cron, {type ScheduledTask} from 'node-cron'
import type {System} from './import.js'
import {failAbandonedRuns, runSync, sweepStaleDownloads, syncsSettled} from './run.js'
import {syncSource, syncSources} from './sources.js'

export interface SyncScheduler {
  stop(): Promise<void>
}

/** How often the scheduler re-reads `sync_sources` (sources added or removed by the CLI while serving). */
const RELOAD_MS = 30_000

/**
 * `loc serve` runs each sync source on its cron schedule (node-cron). Sources are re-read every
 * 30 s, so `loc geofences sync add|remove` takes effect without a restart. A source never runs twice
 * at once; each run is recorded (src/sync/run.ts). Runs a killed process left `running` are marked
 * failed at start, and their downloads removed.
 */
export function startSyncScheduler(system: System): SyncScheduler {
  const abandoned = failAbandonedRuns(system.store)
  if (abandoned) system.log.warn({runs: abandoned}, 'sync runs left running by a process that ended were marked failed')
  const swept = sweepStaleDownloads(system.store, system.config.dataDir)
  if (swept) system.log.info({files: swept}, 'removed downloads left in the data directory by sync runs that ended')
  const tasks = new Map<string, {schedule: string; task: ScheduledTask}>()
  const reload = () => {
    const sources = syncSources(system.store)
    const wanted = new Map(sources.map((s) => [s.id, s.schedule]))
    for (const [id, entry] of tasks) {
      if (wanted.get(id) !== entry.schedule) {
        void entry.task.destroy()
        tasks.delete(id)
      }
    }
    for (const source of sources) {
      if (tasks.has(source.id)) continue
      const task = cron.schedule(source.schedule, async () => {
        const current = syncSource(system.store, source.id)
        if (current) await runSync(system, current, 'schedule')
      }, {name: `sync-${source.id}`, noOverlap: true})
      task.unref?.()
      tasks.set(source.id, {schedule: source.schedule, task})
    }
  }
  const safeReload = () => {
    try {
      reload()
    } catch (err) {
      system.log.error({err}, 'sync scheduler: cannot read sync sources')
    }
  }
  safeReload()
  const timer = setInterval(safeReload, RELOAD_MS)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await Promise.all([...tasks.values()].map((t) => t.task.destroy()))
      tasks.clear()
      await syncsSettled(system.store)
    },
  }
}
