import {Flags} from '@oclif/core'
import {createKey} from '../../../project/keys.js'
import {BaseCommand} from '../../base.js'

export default class KeysCreate extends BaseCommand<typeof KeysCreate> {
  static description = 'Create an API key and print it on stdout. It is shown only this once: only its hash is stored.'
  static examples = [
    '<%= config.bin %> keys create --type publishable --env test',
    'SECRET=$(<%= config.bin %> keys create --type secret --env live)',
  ]

  static flags = {
    type: Flags.string({description: 'publishable (P endpoints, safe in apps) or secret (all endpoints, server side)', options: ['publishable', 'secret'], required: true}),
    env: Flags.string({description: 'environment whose data the key reads and writes', options: ['test', 'live'], required: true}),
  }

  async run(): Promise<void> {
    const store = await this.openStore()
    const {key, record} = await createKey(store, this.flags.type as 'publishable' | 'secret', this.flags.env as 'test' | 'live')
    this.log(key)
    this.logToStderr(`created ${record.type} ${record.env} key ${record.prefix}… (store it now: it will not be shown again)`)
  }
}
