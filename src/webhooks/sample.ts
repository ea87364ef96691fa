import type {Config} from '../config/index.js'
import {refuse} from '../errors.js'
import type {Store} from '../store/db.js'
import {sampleBody} from './payload.js'
import {findWebhook, webhookSecret} from './registry.js'
import {createSender, type SendResult} from './sender.js'
import {signatureHeaders} from './signing.js'

/** Sends a signed sample event (`webhook.test`) to a webhook now, outside the outbox: `loc webhooks test`. */
export async function sendSample(store: Store, config: Config['webhooks'], id: string): Promise<SendResult & {ms: number}> {
  const webhook = await findWebhook(store, id)
  const secret = webhookSecret(store, id)
  if (!webhook || !secret) throw refuse.notFound(`webhook ${id}`)
  const sender = createSender(config)
  const body = sampleBody(webhook.live, webhook.batch)
  const started = performance.now()
  try {
    return {...(await sender.send(webhook.url, body, signatureHeaders(secret, body))), ms: performance.now() - started}
  } finally {
    await sender.close()
  }
}
