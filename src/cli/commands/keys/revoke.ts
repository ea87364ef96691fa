import {Args} from '@oclif/core'
import {revokeKey} from '../../../project/keys.js'
import {BaseCommand} from '../../base.js'

export default class KeysRevoke extends BaseCommand<typeof KeysRevoke> {
  static description = 'Revoke the API key with the given prefix (as `loc keys list` shows it). Requests with it get 401 at once.'
  static examples = ['<%= config.bin %> keys revoke prj_test_sk_1a2b3c4d']
  static needsStore = true
  static args = {prefix: Args.string({description: 'key prefix from `loc keys list`', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(KeysRevoke)
    const {key, alreadyRevoked} = await revokeKey(await this.openStore(), args.prefix)
    if (alreadyRevoked) this.log(`${key.prefix} (${key.type} ${key.env}) was already revoked at ${key.revokedAt}; nothing changed`)
    else this.log(`revoked ${key.prefix} (${key.type} ${key.env})`)
  }
}
