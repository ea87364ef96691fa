import {Args} from '@oclif/core'
import {refuse} from '../../../../errors.js'
import {runSync} from '../../../../sync/run.js'
import {displayUrl, syncSource} from '../../../../sync/sources.js'
import {BaseCommand} from '../../../base.js'
import {runLine} from './list.js'

export default class SyncRun extends BaseCommand<typeof SyncRun> {
  static description = 'Run a geofence sync now and print its result (recorded like scheduled runs). Prints the run on stdout, or on stderr and exits 1 when it failed; log lines go to stderr.'
  static needsStore = true
  static examples = ['<%= config.bin %> geofences sync run 6740f2a1c3d4e5f6a7b8c9d0']
  static args = {id: Args.string({description: 'sync source id (from `loc geofences sync list`)', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(SyncRun)
    const system = await this.system()
    const source = syncSource(system.store, args.id)
    if (!source) throw refuse.notFound('sync source')
    this.logToStderr(`syncing ${displayUrl(source.url)}`)
    // stdout is the result line alone: the run's log lines go to stderr (BaseCommand)
    const run = await runSync(system, source, 'cli')
    if (run.status !== 'failed') return this.log(runLine(run))
    this.logToStderr(runLine(run))
    this.exit(1)
  }
}
