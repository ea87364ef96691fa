import {failAbandonedRuns} from '../../../../sync/run.js'
import {displayUrl, lastRuns, type SyncRun, syncSources} from '../../../../sync/sources.js'
import {BaseCommand} from '../../../base.js'
import {count} from '../../../progress.js'

export default class SyncList extends BaseCommand<typeof SyncList> {
  static description = 'List the geofence sync sources and their last runs (status, counts, duration, error).'
  static needsStore = true
  static examples = ['<%= config.bin %> geofences sync list']

  async run(): Promise<void> {
    const {store} = await this.system()
    failAbandonedRuns(store)
    const sources = syncSources(store)
    if (!sources.length) {
      this.log('no sync sources (add one with `loc geofences sync add`)')
      return
    }
    for (const source of sources) {
      const options = [source.live ? 'live' : 'test', `schedule "${source.schedule}"`, source.prune ? 'prune' : '',
        source.region ? `region ${source.region}` : '', source.endpoint ? `endpoint ${source.endpoint}` : '', source.credentials ? `credentials ${source.credentials}` : '']
      this.log(`${source.id}  ${displayUrl(source.url)}  ${options.filter(Boolean).join(', ')}`)
      const runs = lastRuns(store, source.id)
      if (!runs.length) this.log('  never run')
      for (const run of runs) this.log(`  ${runLine(run)}`)
    }
  }
}

export function runLine(run: SyncRun): string {
  const took = run.duration_ms === null ? '' : ` in ${(run.duration_ms / 1000).toFixed(1)} s`
  const counts = run.status === 'succeeded' || run.failed
    ? ` ${count(run.created)} created, ${count(run.updated)} updated, ${count(run.unchanged)} unchanged, ${count(run.deleted)} deleted, ${count(run.failed)} failed`
    : ''
  const why = run.status === 'skipped' ? ' file unchanged' : ''
  return `${run.started_at} ${run.trigger.padEnd(8)} ${run.status}${why}${counts}${took}${run.error ? ` — ${run.error}` : ''}`
}
