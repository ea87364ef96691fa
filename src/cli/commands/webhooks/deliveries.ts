import {Flags} from '@oclif/core'
import {refuse} from '../../../errors.js'
import {type Delivery, listDeliveries} from '../../../webhooks/deliveries.js'
import {findWebhook} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'
import {table} from '../../table.js'

const HEADER = ['ID', 'WEBHOOK', 'EVENT', 'TYPE', 'STATUS', 'ATTEMPTS', 'LAST ERROR']

export default class WebhooksDeliveries extends BaseCommand<typeof WebhooksDeliveries> {
  static description = 'List webhook deliveries, newest first, under a header row: pending (never tried), failed (retry scheduled), delivered, dead (retries spent).'
  static needsStore = true
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
    const store = await this.openStore()
    if (webhook !== undefined && !(await findWebhook(store, webhook))) throw refuse.notFound(`webhook ${webhook}`)
    const rows = await listDeliveries(store, {status: status as 'pending' | undefined, webhookId: webhook, limit})
    if (rows.length === 0) return this.log('no deliveries')
    for (const line of table([HEADER, ...rows.map(cells)], [0])) this.log(line)
  }
}

function cells(d: Delivery): string[] {
  const state = d.status === 'delivered' ? `delivered ${d.deliveredAt}` : d.nextAttemptAt ? `${d.status}, next ${d.nextAttemptAt}` : d.status
  const note = [d.lastError ?? '', d.replayOf ? `(replay of ${d.replayOf})` : ''].filter(Boolean).join(' ')
  return [String(d.id), d.webhookId, d.eventId, d.eventType ?? '-', state, String(d.attempts), note]
}
