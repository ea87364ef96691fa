import {Args, Flags} from '@oclif/core'
import {displayUrl} from '../../../sync/sources.js'
import {parseNewWebhook} from '../../../webhooks/input.js'
import {addWebhook} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'

export default class WebhooksAdd extends BaseCommand<typeof WebhooksAdd> {
  static description = 'Register a webhook: every event of the environment (or of --types) is POSTed to URL, signed. Prints the signing secret (whsec_…) on stdout, this once.'
  static examples = [
    '<%= config.bin %> webhooks add https://example.com/hooks/loc --env live',
    '<%= config.bin %> webhooks add https://example.com/hooks/trips --env test --types user.started_trip,user.arrived_at_trip_destination --batch',
  ]

  static args = {url: Args.string({description: 'http(s) URL that receives the POSTs', required: true})}
  static flags = {
    env: Flags.string({description: 'environment whose events it receives', options: ['test', 'live'], required: true}),
    types: Flags.string({description: 'comma-separated event types (default: every type)', helpValue: 'T,...'}),
    batch: Flags.boolean({description: 'send {events, user}: up to 5 events of one user per request'}),
  }

  async run(): Promise<void> {
    const {args} = await this.parse(WebhooksAdd)
    const {store, config} = await this.system()
    const input = parseNewWebhook({url: args.url, types: this.flags.types, batch: this.flags.batch}, config.webhooks.allowPrivate)
    const {webhook, secret} = addWebhook(store, this.flags.env === 'live', input)
    this.log(secret)
    this.logToStderr(`added webhook ${webhook.id} (${this.flags.env}${webhook.types ? `, ${webhook.types.join(', ')}` : ', every type'}${webhook.batch ? ', batch' : ''}) → ${displayUrl(webhook.url)}`)
    this.logToStderr('the line above is its signing secret: store it now, it will not be shown again')
  }
}
