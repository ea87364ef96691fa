import {type Kysely, sql} from 'kysely'

/**
 * `geofence_metadata`: one row per scalar metadata entry of every geofence, kept by triggers (so
 * every writer, in any process, keeps it true), indexed so `GET /v1/geofences?metadata[k]=v` reads
 * one index range in list order instead of parsing every geofence's JSON (150–180 ms at 210k).
 * `value` has no type affinity: text stays text, numbers stay numbers, booleans are the text
 * `true`/`false` (a filter's `true` matches both, as before).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE geofence_metadata (
    geofence_id TEXT NOT NULL,
    live INTEGER NOT NULL,
    key TEXT NOT NULL,
    value,
    updated_at TEXT NOT NULL
  )`.execute(db)
  await sql`CREATE INDEX geofence_metadata_match ON geofence_metadata (live, key, value, updated_at, geofence_id)`.execute(db)
  await sql`CREATE INDEX geofence_metadata_geofence ON geofence_metadata (geofence_id)`.execute(db)

  const entries = (row: string) => sql.raw(`INSERT INTO geofence_metadata (geofence_id, live, key, value, updated_at)
    SELECT ${row}.id, ${row}.live, j.key, CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE j.value END, ${row}.updated_at
    FROM json_each(${row}.metadata) j WHERE j.type NOT IN ('object', 'array', 'null')`)
  await sql`CREATE TRIGGER geofence_metadata_insert AFTER INSERT ON geofences WHEN new.metadata IS NOT NULL
    BEGIN ${entries('new')}; END`.execute(db)
  await sql`CREATE TRIGGER geofence_metadata_update AFTER UPDATE OF metadata, updated_at, live ON geofences
    BEGIN DELETE FROM geofence_metadata WHERE geofence_id = old.id; ${entries('new')}; END`.execute(db)
  await sql`CREATE TRIGGER geofence_metadata_delete AFTER DELETE ON geofences
    BEGIN DELETE FROM geofence_metadata WHERE geofence_id = old.id; END`.execute(db)
  await sql`INSERT INTO geofence_metadata (geofence_id, live, key, value, updated_at)
    SELECT g.id, g.live, j.key, CASE j.type WHEN 'true' THEN 'true' WHEN 'false' THEN 'false' ELSE j.value END, g.updated_at
    FROM geofences g, json_each(g.metadata) j WHERE g.metadata IS NOT NULL AND j.type NOT IN ('object', 'array', 'null')`.execute(db)
}
