import {Args} from '@oclif/core'
import {refuse} from '../../../errors.js'
import {rotateWebhookSecret} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'

export default class WebhooksRotateSecret extends BaseCommand<typeof WebhooksRotateSecret> {
  static description = 'Give a webhook a new signing secret, printed on stdout this once. Requests are signed with it from now on; the old one stops at once.'
  static needsStore = true
  static examples = ['SECRET=$(<%= config.bin %> webhooks rotate-secret 6b03765fbf54a64f5f0547fc)']
  static args = {id: Args.string({description: 'webhook id from `loc webhooks list`', required: true})}

  async run(): Promise<void> {
    const {args} = await this.parse(WebhooksRotateSecret)
    const secret = rotateWebhookSecret(await this.openStore(), args.id)
    if (!secret) throw refuse.notFound(`webhook ${args.id}`)
    this.log(secret)
    this.logToStderr(`new signing secret for webhook ${args.id}: store it now, it will not be shown again`)
  }
}
