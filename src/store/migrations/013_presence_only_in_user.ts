import {type Kysely, sql} from 'kysely'

/**
 * `geofence_presence` (which users are inside which geofence, the other way round from
 * `users.presence`) goes: every entry and exit wrote a random page of it, ~15 % of a track's time
 * at 100k geofences. "Users in a geofence" reads `users.presence` instead (geofences/store.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`DROP TABLE geofence_presence`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE geofence_presence (
    geofence_id TEXT NOT NULL REFERENCES geofences (id) ON DELETE CASCADE,
    user_ref TEXT NOT NULL,
    PRIMARY KEY (geofence_id, user_ref)
  ) WITHOUT ROWID`.execute(db)
  await sql`INSERT OR IGNORE INTO geofence_presence SELECT e.value ->> 0, u.id
    FROM users u, json_each(u.presence) e WHERE u.presence IS NOT NULL AND e.value ->> 0 IN (SELECT id FROM geofences)`.execute(db)
}
