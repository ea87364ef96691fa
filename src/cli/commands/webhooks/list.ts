import {displayUrl} from '../../../sync/sources.js'
import {owedByWebhook} from '../../../webhooks/deliveries.js'
import {listWebhooks} from '../../../webhooks/registry.js'
import {BaseCommand} from '../../base.js'

export default class WebhooksList extends BaseCommand<typeof WebhooksList> {
  static description = 'List webhooks with their environment, event types and owed deliveries (secrets are never shown; a URL\'s query, which may hold the receiver\'s token, is shown as ?…).'
  static needsStore = true
  static examples = ['<%= config.bin %> webhooks list']

  async run(): Promise<void> {
    const store = await this.openStore()
    const hooks = await listWebhooks(store)
    if (hooks.length === 0) return this.log('no webhooks: add one with `loc webhooks add URL --env test`')
    const owedBy = await owedByWebhook(store)
    for (const w of hooks) {
      this.log([w.id, (w.live ? 'live' : 'test').padEnd(4), w.batch ? 'batch ' : 'single', `owed ${owedBy.get(w.id) ?? 0}`.padEnd(10), displayUrl(w.url), w.types ? `types ${w.types.join(',')}` : 'every type'].join('  '))
    }
  }
}
