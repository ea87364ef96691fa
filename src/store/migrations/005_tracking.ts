import {type Kysely, sql} from 'kysely'

/**
 * Tracking state that must survive a restart and be shared by every process on the store:
 * the confidence of each presence (what the entry was decided on), and where a trip's ETA came
 * from (`routing` or `straightLine`, the documented fallback).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE geofence_presence ADD COLUMN confidence INTEGER NOT NULL DEFAULT 0`.execute(db)
  await sql`ALTER TABLE trips ADD COLUMN eta_source TEXT`.execute(db)
  await sql`CREATE INDEX geofence_presence_user ON geofence_presence (user_ref)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX geofence_presence_user`.execute(db)
  await sql`ALTER TABLE trips DROP COLUMN eta_source`.execute(db)
  await sql`ALTER TABLE geofence_presence DROP COLUMN confidence`.execute(db)
}
