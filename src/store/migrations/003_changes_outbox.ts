import {type Kysely, sql} from 'kysely'

/** The tables whose rows in-memory state follows, and the id each change names. */
const FOLLOWED = [
  ['geofences', 'id'],
  ['beacons', 'id'],
  ['settings', 'key'],
  ['api_keys', 'id'],
  ['webhooks', 'id'],
] as const

/**
 * The change feed, the webhook registry and the delivery outbox.
 *
 * `changes` gets a row in the same transaction as every insert, update and delete of a followed
 * table, by trigger: so writes from any process (the CLI while `loc serve` runs, a second server)
 * and any code path are seen, and none can forget to record. AUTOINCREMENT keeps `seq` strictly
 * increasing and never reused, so a follower that finds a gap after its position knows it was
 * pruned past and rebuilds.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE changes (
    seq INTEGER PRIMARY KEY AUTOINCREMENT,
    live INTEGER NOT NULL,
    kind TEXT NOT NULL,
    ref TEXT NOT NULL,
    deleted INTEGER NOT NULL
  )`.execute(db)

  await sql`CREATE TABLE webhooks (
    id TEXT PRIMARY KEY,
    live INTEGER NOT NULL,
    url TEXT NOT NULL,
    types TEXT,
    batch INTEGER NOT NULL DEFAULT 0,
    secret TEXT NOT NULL,
    enabled INTEGER NOT NULL DEFAULT 1,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`.execute(db)

  await sql`CREATE TABLE webhook_outbox (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    webhook_id TEXT NOT NULL REFERENCES webhooks (id) ON DELETE CASCADE,
    event_id TEXT NOT NULL,
    live INTEGER NOT NULL,
    status TEXT NOT NULL,
    attempts INTEGER NOT NULL DEFAULT 0,
    next_attempt_at TEXT NOT NULL,
    lease_until TEXT,
    last_error TEXT,
    created_at TEXT NOT NULL,
    delivered_at TEXT
  )`.execute(db)
  await sql`CREATE INDEX webhook_outbox_due ON webhook_outbox (status, next_attempt_at) WHERE status = 'pending'`.execute(db)
  await sql`CREATE INDEX webhook_outbox_order ON webhook_outbox (webhook_id, id)`.execute(db)

  for (const [table, ref] of FOLLOWED) {
    for (const [op, row, deleted] of [['INSERT', 'NEW', 0], ['UPDATE', 'NEW', 0], ['DELETE', 'OLD', 1]] as const) {
      await sql.raw(`CREATE TRIGGER ${table}_${op.toLowerCase()}_change AFTER ${op} ON ${table} BEGIN
        INSERT INTO changes (live, kind, ref, deleted) VALUES (${row}.live, '${table}', ${row}.${ref}, ${deleted});
      END`).execute(db)
    }
  }
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const [table] of FOLLOWED) {
    for (const op of ['insert', 'update', 'delete']) await sql.raw(`DROP TRIGGER ${table}_${op}_change`).execute(db)
  }
  await sql`DROP TABLE webhook_outbox`.execute(db)
  await sql`DROP TABLE webhooks`.execute(db)
  await sql`DROP TABLE changes`.execute(db)
}
