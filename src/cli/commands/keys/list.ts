import {listKeys} from '../../../project/keys.js'
import {BaseCommand} from '../../base.js'
import {table} from '../../table.js'

const HEADER = ['PREFIX', 'TYPE', 'ENV', 'STATE', 'CREATED']

export default class KeysList extends BaseCommand<typeof KeysList> {
  static description = 'List API keys under a header row: prefix, type, environment, state and creation time (keys themselves are never shown).'
  static examples = ['<%= config.bin %> keys list']
  static needsStore = true

  async run(): Promise<void> {
    const keys = await listKeys(await this.openStore())
    if (keys.length === 0) return this.log('no keys: create one with `loc keys create --type secret --env test`')
    const rows = keys.map((k) => [k.prefix, k.type, k.env, k.revokedAt ? `revoked ${k.revokedAt}` : 'active', k.createdAt])
    for (const line of table([HEADER, ...rows])) this.log(line)
  }
}
