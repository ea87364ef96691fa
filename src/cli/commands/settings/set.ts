import {Args, Flags} from '@oclif/core'
import {getSettings, parseSettingValue, type SettingKey, setSetting} from '../../../project/settings.js'
import {BaseCommand} from '../../base.js'

export default class SettingsSet extends BaseCommand<typeof SettingsSet> {
  static description = 'Set a project setting. The value is JSON where it parses (true, 3, ["US"]), else text. Invalid values are refused and change nothing.'
  static examples = [
    '<%= config.bin %> settings set geofences.minConfidence 3',
    '<%= config.bin %> settings set regions.enabled true --env live',
    `<%= config.bin %> settings set security.blockedCountries '["KP"]'`,
  ]

  static args = {
    key: Args.string({description: 'setting name (see `loc settings list`)', required: true}),
    value: Args.string({description: 'new value', required: true}),
  }

  static flags = {env: Flags.string({description: 'environment (default: both)', options: ['test', 'live', 'both'], default: 'both'})}

  async run(): Promise<void> {
    const {args} = await this.parse(SettingsSet)
    const store = await this.openStore()
    const value = parseSettingValue(args.value)
    const envs = this.flags.env === 'both' ? [false, true] : [this.flags.env === 'live']
    // one value for every environment: it is valid for all or for none
    for (const live of envs) await setSetting(store, live, args.key, value)
    // as stored: checking may have normalised it (`kp` → `KP`, a repeat dropped)
    const stored = getSettings(store, envs.at(-1)!)[args.key as SettingKey]
    this.log(`${args.key} = ${JSON.stringify(stored)} (${this.flags.env})`)
  }
}
