import {Args} from '@oclif/core'
import {refuse} from '../../../../errors.js'
import {runSync} from '../../../../sync/run.js'
import {displayUrl, syncSource} from '../../../../sync/sources.js'
import {BaseCommand} from '../../../base.js'
import {runLine} from './list.js'

export default class SyncRun extends BaseCommand<typeof SyncRun> {
  static description = 'Run a geofence sync now and print its result (recorded like scheduled runs). Exits 1 when the run failed.'
  static examples = ['<%= config.bin %> geofences sync run 6740f2a1c3d4e5f6a7b8c9d0']
  static args = {id: Args.string({description: 'sync source id (from `loc geofences sync list`)', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(SyncRun)
    const system = await this.system()
    const source = syncSource(system.store, args.id)
    if (!source) throw refuse.notFound('sync source')
    this.logToStderr(`syncing ${displayUrl(source.url)}…`)
    const run = await runSync(system, source, 'cli')
    this.log(runLine(run))
    if (run.status === 'failed') this.exit(1)
  }
}
