import {Flags} from '@oclif/core'
import {listDeliveries} from '../../../webhooks/deliveries.js'
import {BaseCommand} from '../../base.js'

export default class WebhooksDeliveries extends BaseCommand<typeof WebhooksDeliveries> {
  static description = 'List webhook deliveries, newest first: pending (never tried), failed (retry scheduled), delivered, dead (retries spent).'
  static examples = [
    '<%= config.bin %> webhooks deliveries --status dead',
    '<%= config.bin %> webhooks deliveries --webhook 6b03765fbf54a64f5f0547fc --limit 200',
  ]

  static flags = {
    status: Flags.string({description: 'only deliveries in this state', options: ['pending', 'failed', 'delivered', 'dead']}),
    webhook: Flags.string({description: 'only this webhook\'s deliveries', helpValue: 'ID'}),
    limit: Flags.integer({description: 'at most this many (default 50)', min: 1, max: 10_000, default: 50}),
  }

  async run(): Promise<void> {
    const {status, webhook, limit} = this.flags
    const rows = await listDeliveries(await this.openStore(), {status: status as 'pending' | undefined, webhookId: webhook, limit})
    if (rows.length === 0) return this.log('no deliveries')
    for (const d of rows) {
      const state = d.status === 'delivered' ? `delivered ${d.deliveredAt}` : d.nextAttemptAt ? `${d.status}, next ${d.nextAttemptAt}` : d.status
      this.log([String(d.id).padStart(8), d.webhookId, d.eventId, state.padEnd(40), `attempts ${d.attempts}`, d.lastError ?? '', d.replayOf ? `(replay of ${d.replayOf})` : ''].join('  ').trimEnd())
    }
  }
}
