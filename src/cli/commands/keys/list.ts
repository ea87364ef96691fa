import {listKeys} from '../../../project/keys.js'
import {BaseCommand} from '../../base.js'

export default class KeysList extends BaseCommand<typeof KeysList> {
  static description = 'List API keys by prefix, type, environment and state (keys themselves are never shown).'
  static examples = ['<%= config.bin %> keys list']
  static needsStore = true

  async run(): Promise<void> {
    const keys = await listKeys(await this.openStore())
    if (keys.length === 0) return this.log('no keys: create one with `loc keys create --type secret --env test`')
    for (const k of keys) {
      this.log([k.prefix.padEnd(22), k.type.padEnd(12), k.env.padEnd(5), k.revokedAt ? `revoked ${k.revokedAt}` : 'active', `created ${k.createdAt}`].join('  '))
    }
  }
}
