import {Args, Flags} from '@oclif/core'
import {refuse} from '../../../errors.js'
import {deliveriesOfEvent, deliveriesSince, replayDeliveries} from '../../../webhooks/deliveries.js'
import {parseSince} from '../../../webhooks/input.js'
import {findWebhook} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'
import {count} from '../../progress.js'

export default class WebhooksReplay extends BaseCommand<typeof WebhooksReplay> {
  static description = 'Send deliveries again, whatever became of them: one delivery (its id), every delivery of an event (its _id), or every delivery since a time. They join the end of their webhook\'s queue; `loc serve` sends them.'
  static needsStore = true
  static examples = [
    '<%= config.bin %> webhooks replay 1042',
    '<%= config.bin %> webhooks replay 6b0376614e9cd83c5549b9e7',
    '<%= config.bin %> webhooks replay --since 2026-11-22T10:00:00Z --webhook 6b03765fbf54a64f5f0547fc',
  ]

  static args = {id: Args.string({description: 'delivery id (from `loc webhooks deliveries`) or event _id'})}
  static flags = {
    since: Flags.string({description: 'replay every delivery created at or after this time', helpValue: 'TIME'}),
    webhook: Flags.string({description: 'with --since: only this webhook\'s deliveries', helpValue: 'ID'}),
  }

  async run(): Promise<void> {
    const {args} = await this.parse(WebhooksReplay)
    const store = await this.openStore()
    if (!args.id === !this.flags.since) throw refuse.invalid('id', 'give a delivery id, an event _id, or --since TIME (one of them)')
    if (this.flags.webhook !== undefined && !(await findWebhook(store, this.flags.webhook))) throw refuse.notFound(`webhook ${this.flags.webhook}`)
    let ids: number[]
    if (this.flags.since) ids = await deliveriesSince(store, parseSince(this.flags.since), this.flags.webhook)
    else if (/^\d+$/.test(args.id!)) ids = [Number(args.id)]
    else if (/^[0-9a-f]{24}$/.test(args.id!)) {
      ids = await deliveriesOfEvent(store, args.id!)
      if (ids.length === 0) throw refuse.notFound(`deliveries of event ${args.id}`)
    } else throw refuse.invalid('id', 'a delivery id (digits) or an event _id (24 hex characters)')
    const created = replayDeliveries(store, ids)
    this.log(`queued ${count(created.length)} ${created.length === 1 ? 'delivery' : 'deliveries'} again${created.length ? ` (${created[0]}${created.length > 1 ? `…${created.at(-1)}` : ''})` : ''}`)
  }
}
