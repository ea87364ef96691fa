import {type Kysely, sql} from 'kysely'

/**
 * What the delivery worker needs of the outbox (src/webhooks/worker.ts). A delivery is owed while
 * its status is `pending` (never tried) or `failed` (a retry is scheduled). `lease_owner` names the
 * worker that claimed it until `lease_until`, so two workers or processes never send it at once.
 * `webhook_outbox_owed` finds a webhook's next owed deliveries in order (its head waits for an ack
 * or a dead-letter before the next goes out); `webhook_outbox_created` serves `replay --since`.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE webhook_outbox ADD COLUMN lease_owner TEXT`.execute(db)
  await sql`ALTER TABLE webhook_outbox ADD COLUMN replay_of INTEGER`.execute(db)
  await sql`DROP INDEX webhook_outbox_due`.execute(db)
  await sql`CREATE INDEX webhook_outbox_owed ON webhook_outbox (webhook_id, id) WHERE status IN ('pending', 'failed')`.execute(db)
  await sql`CREATE INDEX webhook_outbox_status ON webhook_outbox (status, id)`.execute(db)
  await sql`CREATE INDEX webhook_outbox_created ON webhook_outbox (created_at)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX webhook_outbox_created`.execute(db)
  await sql`DROP INDEX webhook_outbox_status`.execute(db)
  await sql`DROP INDEX webhook_outbox_owed`.execute(db)
  await sql`CREATE INDEX webhook_outbox_due ON webhook_outbox (status, next_attempt_at) WHERE status = 'pending'`.execute(db)
  await sql`ALTER TABLE webhook_outbox DROP COLUMN replay_of`.execute(db)
  await sql`ALTER TABLE webhook_outbox DROP COLUMN lease_owner`.execute(db)
}
