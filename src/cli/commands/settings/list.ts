import {Flags} from '@oclif/core'
import {getSettings, SETTINGS} from '../../../project/settings.js'
import {BaseCommand} from '../../base.js'

export default class SettingsList extends BaseCommand<typeof SettingsList> {
  static description = 'List every project setting with its value and meaning.'
  static examples = ['<%= config.bin %> settings list', '<%= config.bin %> settings list --env test']
  static needsStore = true
  static flags = {env: Flags.string({description: 'environment', options: ['test', 'live'], default: 'live'})}

  async run(): Promise<void> {
    const settings = getSettings(await this.openStore(), this.flags.env === 'live')
    for (const [key, spec] of Object.entries(SETTINGS)) {
      this.log(`${key.padEnd(28)} ${JSON.stringify(settings[key as keyof typeof settings]).padEnd(10)} ${spec.description}`)
    }
  }
}
