import {Args} from '@oclif/core'
import {refuse} from '../../../../errors.js'
import {removeSyncSource} from '../../../../sync/sources.js'
import {BaseCommand} from '../../../base.js'

export default class SyncRemove extends BaseCommand<typeof SyncRemove> {
  static description = 'Remove a geofence sync source and its run history. Its geofences stay.'
  static needsStore = true
  static examples = ['<%= config.bin %> geofences sync remove 6740f2a1c3d4e5f6a7b8c9d0']
  static args = {id: Args.string({description: 'sync source id', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(SyncRemove)
    const {store} = await this.system()
    if (!removeSyncSource(store, args.id)) throw refuse.notFound('sync source')
    this.log(`removed sync source ${args.id} (its geofences are kept)`)
  }
}
