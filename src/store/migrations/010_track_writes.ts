import {type Kysely, sql} from 'kysely'

/**
 * Fewer b-trees written per track (7.2 WAL pages a track at 100k geofences before this).
 * Presence is clustered by its key (WITHOUT ROWID: one b-tree instead of a table, its key index and
 * a second index on the same user_ref). The userId and deviceId lookups drop `updated_at` from their
 * keys (a device has a handful of rows; the newest is sorted out of those) so that a track, which
 * moves `updated_at` and never those ids, leaves both indexes untouched; userId is indexed only
 * where there is one.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE geofence_presence_clustered (
    user_ref TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    geofence_id TEXT NOT NULL REFERENCES geofences (id) ON DELETE CASCADE,
    live INTEGER NOT NULL,
    entered_at TEXT NOT NULL,
    dwelled INTEGER NOT NULL DEFAULT 0,
    confidence INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_ref, geofence_id)
  ) WITHOUT ROWID`.execute(db)
  await sql`INSERT INTO geofence_presence_clustered SELECT user_ref, geofence_id, live, entered_at, dwelled, confidence FROM geofence_presence`.execute(db)
  await sql`DROP TABLE geofence_presence`.execute(db)
  await sql`ALTER TABLE geofence_presence_clustered RENAME TO geofence_presence`.execute(db)
  await sql`CREATE INDEX geofence_presence_geofence ON geofence_presence (geofence_id)`.execute(db)

  await sql`DROP INDEX users_live_user_id`.execute(db)
  await sql`CREATE INDEX users_live_user_id ON users (live, user_id) WHERE user_id IS NOT NULL`.execute(db)
  await sql`DROP INDEX users_live_device_id`.execute(db)
  await sql`CREATE INDEX users_live_device_id ON users (live, device_id)`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX users_live_device_id`.execute(db)
  await sql`CREATE INDEX users_live_device_id ON users (live, device_id, updated_at)`.execute(db)
  await sql`DROP INDEX users_live_user_id`.execute(db)
  await sql`CREATE INDEX users_live_user_id ON users (live, user_id, updated_at)`.execute(db)
  await sql`CREATE INDEX geofence_presence_user ON geofence_presence (user_ref)`.execute(db)
}
