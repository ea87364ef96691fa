import {Args} from '@oclif/core'
import {refuse} from '../../../errors.js'
import {removeWebhook} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'

export default class WebhooksRemove extends BaseCommand<typeof WebhooksRemove> {
  static description = 'Remove a webhook and the deliveries it is still owed.'
  static needsStore = true
  static examples = ['<%= config.bin %> webhooks remove 6b03765fbf54a64f5f0547fc']
  static args = {id: Args.string({description: 'webhook id from `loc webhooks list`', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(WebhooksRemove)
    if (!removeWebhook(await this.openStore(), args.id)) throw refuse.notFound(`webhook ${args.id}`)
    this.log(`removed webhook ${args.id}`)
  }
}
