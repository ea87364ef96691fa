import {displayUrl} from '../../../sync/sources.js'
import {owedByWebhook} from '../../../webhooks/deliveries.js'
import {listWebhooks} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'
import {count} from '../../progress.js'
import {table} from '../../table.js'

const HEADER = ['ID', 'ENV', 'DELIVERY', 'OWED', 'URL', 'TYPES']

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static description = 'List webhooks under a header row: id, environment, single or batch delivery, deliveries owed, URL and event types (secrets are never shown; a URL\'s query, which may hold the receiver\'s token, is shown as ?…).'
  static needsStore = true
  static examples = ['<%= config.bin %> webhooks list']

  async run(): Promise<void> {
    const store = await this.openStore()
    const hooks = await listWebhooks(store)
    if (hooks.length === 0) return this.log('no webhooks: add one with `loc webhooks add URL --env test`')
    const owedBy = await owedByWebhook(store)
    const rows = hooks.map((w) => [w.id, w.live ? 'live' : 'test', w.batch ? 'batch' : 'single', count(owedBy.get(w.id) ?? 0), displayUrl(w.url), w.types ? w.types.join(',') : 'every type'])
    for (const line of table([HEADER, ...rows], [3])) this.log(line)
  }
}
