import {type Kysely, sql} from 'kysely'

/**
 * Presence moves into the user row, which every track reads and writes anyway: an entry or exit
 * writes one b-tree (`geofence_presence`, now only which users are inside which geofence, for
 * "users in a geofence") instead of two, and a track never reads presence apart from its user.
 * The per-process presence cache's stamp goes with it: the presence text read is its own stamp.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN presence TEXT`.execute(db)
  await sql`UPDATE users SET presence = (
    SELECT json_group_array(json_array(geofence_id, entered_at, dwelled, confidence)) FROM geofence_presence p WHERE p.user_ref = users.id
  ) WHERE id IN (SELECT user_ref FROM geofence_presence)`.execute(db)
  await sql`CREATE TABLE geofence_users (
    geofence_id TEXT NOT NULL REFERENCES geofences (id) ON DELETE CASCADE,
    user_ref TEXT NOT NULL,
    PRIMARY KEY (geofence_id, user_ref)
  ) WITHOUT ROWID`.execute(db)
  await sql`INSERT INTO geofence_users SELECT geofence_id, user_ref FROM geofence_presence`.execute(db)
  await sql`DROP TABLE geofence_presence`.execute(db)
  await sql`ALTER TABLE geofence_users RENAME TO geofence_presence`.execute(db)
  await sql`ALTER TABLE users DROP COLUMN presence_stamp`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN presence_stamp INTEGER`.execute(db)
  await sql`CREATE TABLE geofence_presence_full (
    user_ref TEXT NOT NULL REFERENCES users (id) ON DELETE CASCADE,
    geofence_id TEXT NOT NULL REFERENCES geofences (id) ON DELETE CASCADE,
    live INTEGER NOT NULL,
    entered_at TEXT NOT NULL,
    dwelled INTEGER NOT NULL DEFAULT 0,
    confidence INTEGER NOT NULL DEFAULT 0,
    PRIMARY KEY (user_ref, geofence_id)
  ) WITHOUT ROWID`.execute(db)
  await sql`INSERT INTO geofence_presence_full SELECT u.id, e.value->>0, u.live, e.value->>1, e.value->>2, e.value->>3
    FROM users u, json_each(u.presence) e WHERE u.presence IS NOT NULL`.execute(db)
  await sql`DROP TABLE geofence_presence`.execute(db)
  await sql`ALTER TABLE geofence_presence_full RENAME TO geofence_presence`.execute(db)
  await sql`CREATE INDEX geofence_presence_geofence ON geofence_presence (geofence_id)`.execute(db)
  await sql`ALTER TABLE users DROP COLUMN presence`.execute(db)
}
