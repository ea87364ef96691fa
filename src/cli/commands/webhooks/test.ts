import {Args} from '@oclif/core'
import {sendSample} from '../../../webhooks/sample.js'
import {BaseCommand} from '../../base.js'

export default class WebhooksTest extends BaseCommand<typeof WebhooksTest> {
  static description = 'Send a signed sample event (type webhook.test) to a webhook now and print the answer. Exits 1 unless the receiver answers 2xx.'
  static needsStore = true
  static examples = ['<%= config.bin %> webhooks test 6b03765fbf54a64f5f0547fc']
  static args = {id: Args.string({description: 'webhook id from `loc webhooks list`', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(WebhooksTest)
    const {store, config} = await this.system()
    const result = await sendSample(store, config.webhooks, args.id)
    const answer = result.status ? `HTTP ${result.status}` : result.error
    if (!result.ok) this.error(`the receiver did not acknowledge: ${answer} (${result.ms.toFixed(0)} ms)`, {exit: 1})
    this.log(`acknowledged: ${answer} in ${result.ms.toFixed(0)} ms`)
  }
}
