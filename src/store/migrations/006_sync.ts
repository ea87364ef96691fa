import {type Kysely, sql} from 'kysely'

/**
 * Geofence sync: the configured sources, a record of every run (the jobs `GET /v1/jobs/:id`
 * answers), and which source owns each geofence (`--prune` deletes only its own). Credentials are
 * never stored: `credentials` names a profile in the config file (`sync.credentials.NAME`).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE sync_sources (
    id TEXT PRIMARY KEY,
    live INTEGER NOT NULL,
    kind TEXT NOT NULL,
    url TEXT NOT NULL,
    region TEXT,
    endpoint TEXT,
    credentials TEXT,
    schedule TEXT NOT NULL,
    prune INTEGER NOT NULL DEFAULT 0,
    etag TEXT,
    hash TEXT,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  )`.execute(db)

  await sql`CREATE TABLE sync_runs (
    id TEXT PRIMARY KEY,
    source_id TEXT NOT NULL REFERENCES sync_sources (id) ON DELETE CASCADE,
    live INTEGER NOT NULL,
    trigger TEXT NOT NULL,
    status TEXT NOT NULL,
    created INTEGER NOT NULL DEFAULT 0,
    updated INTEGER NOT NULL DEFAULT 0,
    unchanged INTEGER NOT NULL DEFAULT 0,
    deleted INTEGER NOT NULL DEFAULT 0,
    failed INTEGER NOT NULL DEFAULT 0,
    error TEXT,
    etag TEXT,
    hash TEXT,
    bytes INTEGER,
    started_at TEXT NOT NULL,
    finished_at TEXT,
    duration_ms INTEGER
  )`.execute(db)
  await sql`CREATE INDEX sync_runs_source ON sync_runs (source_id, started_at)`.execute(db)

  await sql`ALTER TABLE geofences ADD COLUMN sync_source TEXT`.execute(db)
  await sql`CREATE INDEX geofences_sync_source ON geofences (sync_source) WHERE sync_source IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX geofences_sync_source`.execute(db)
  await sql`ALTER TABLE geofences DROP COLUMN sync_source`.execute(db)
  await sql`DROP TABLE sync_runs`.execute(db)
  await sql`DROP TABLE sync_sources`.execute(db)
}
