import {Args, Flags} from '@oclif/core'
import {getSettings, isSettingKey, unknownSetting} from '../../../project/settings.js'
import {BaseCommand} from '../../base.js'

export default class SettingsGet extends BaseCommand<typeof SettingsGet> {
  static description = 'Print one project setting as JSON.'
  static examples = ['<%= config.bin %> settings get geofences.minConfidence']
  static needsStore = true
  static args = {key: Args.string({description: 'setting name (see `loc settings list`)', required: true})}
  static flags = {env: Flags.string({description: 'environment', options: ['test', 'live'], default: 'live'})}

  async run(): Promise<void> {
    const {args} = await this.parse(SettingsGet)
    if (!isSettingKey(args.key)) throw unknownSetting(args.key)
    this.log(JSON.stringify(getSettings(await this.openStore(), this.flags.env === 'live')[args.key]))
  }
}
