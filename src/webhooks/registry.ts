import {randomBytes} from 'node:crypto'
import {followed} from '../store/changes.js'
import type {Store} from '../store/db.js'
import {newId, nowIso} from '../store/ids.js'
import type {WebhookTable} from '../store/schema.js'
import {write} from '../store/write.js'

/** A webhook as the event recorder and the delivery worker see it; the signing secret stays in the store. */
export interface Webhook {
  id: string
  live: boolean
  url: string
  /** Event types it wants; null: every type. */
  types: readonly string[] | null
  batch: boolean
  enabled: boolean
  createdAt: string
}

export interface NewWebhook {
  url: string
  types?: string[] | null
  batch?: boolean
}

const toWebhook = (row: Omit<WebhookTable, 'secret'>): Webhook => ({
  id: row.id,
  live: row.live === 1,
  url: row.url,
  types: row.types ? (JSON.parse(row.types) as string[]) : null,
  batch: row.batch === 1,
  enabled: row.enabled === 1,
  createdAt: row.created_at,
})

/** Enabled webhooks per environment in memory: the recorder asks on every event it stores. */
const registry = followed((store) => {
  const read = store.sqlite.prepare('SELECT id, live, url, types, batch, enabled, created_at, updated_at FROM webhooks WHERE enabled = 1 ORDER BY created_at, id')
  let byEnv: Webhook[][] = [[], []]
  const rebuild = () => {
    byEnv = [[], []]
    for (const row of read.all() as Array<Omit<WebhookTable, 'secret'>>) byEnv[row.live].push(toWebhook(row))
  }
  return {kinds: ['webhooks'] as const, rebuild, apply: rebuild, of: (live: boolean) => byEnv[live ? 1 : 0], all: () => [...byEnv[0], ...byEnv[1]]}
})

/** Every enabled webhook, test then live: what the delivery worker serves. */
export function enabledWebhooks(store: Store): Webhook[] {
  return registry(store).all()
}

/** The enabled webhooks of an environment that want events of `type`. */
export function webhooksFor(store: Store, live: boolean, type: string): Webhook[] {
  return registry(store).of(live).filter((w) => w.types === null || w.types.includes(type))
}

/** Registers a webhook; the signing secret (`whsec_…`) is returned once, here. */
export function addWebhook(store: Store, live: boolean, input: NewWebhook): {webhook: Webhook; secret: string} {
  const now = nowIso()
  const secret = newSecret()
  const row: WebhookTable = {
    id: newId(), live: live ? 1 : 0, url: input.url, types: input.types?.length ? JSON.stringify(input.types) : null,
    batch: input.batch ? 1 : 0, secret, enabled: 1, created_at: now, updated_at: now,
  }
  write(store, (tx) => tx.run(store.db.insertInto('webhooks').values(row)))
  return {webhook: toWebhook(row), secret}
}

export async function listWebhooks(store: Store): Promise<Webhook[]> {
  const rows = await store.db.selectFrom('webhooks').select(['id', 'live', 'url', 'types', 'batch', 'enabled', 'created_at', 'updated_at']).orderBy('created_at').execute()
  return rows.map(toWebhook)
}

const newSecret = () => `whsec_${randomBytes(24).toString('hex')}`

export async function findWebhook(store: Store, id: string): Promise<Webhook | undefined> {
  const row = await store.db.selectFrom('webhooks').select(['id', 'live', 'url', 'types', 'batch', 'enabled', 'created_at', 'updated_at']).where('id', '=', id).executeTakeFirst()
  return row && toWebhook(row)
}

/** The signing secret, for the one who signs: never logged, never answered. */
export function webhookSecret(store: Store, id: string): string | undefined {
  return (store.statement('SELECT secret FROM webhooks WHERE id = ?').get(id) as {secret: string} | undefined)?.secret
}

/** A new signing secret replaces the old one at once (returned once, here); undefined when there is no such webhook. */
export function rotateWebhookSecret(store: Store, id: string): string | undefined {
  const secret = newSecret()
  const changed = write(store, (tx) => tx.run(store.db.updateTable('webhooks').set({secret, updated_at: nowIso()}).where('id', '=', id)))
  return changed ? secret : undefined
}

/** Removes a webhook and the deliveries it was owed; false when there is none. */
export function removeWebhook(store: Store, id: string): boolean {
  return write(store, (tx) => tx.run(store.db.deleteFrom('webhooks').where('id', '=', id))) > 0
}
