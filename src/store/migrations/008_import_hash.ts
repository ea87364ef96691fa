import {type Kysely, sql} from 'kysely'

/**
 * `geofences.import_hash`: `<hash of the CSV row's text> <updatedAt the import gave it>`. A re-import
 * whose row hashes the same skips the row unparsed, but only while `updated_at` is still the import's:
 * any other write (API, expiry) stamps a new `updated_at` and so retires the hash. See src/sync/known.ts.
 *
 * `sync_runs.pid` and `host`: the process running a sync, so a run left `running` by a process that
 * died is marked failed on the next start (src/sync/run.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE geofences ADD COLUMN import_hash TEXT`.execute(db)
  await sql`ALTER TABLE sync_runs ADD COLUMN pid INTEGER`.execute(db)
  await sql`ALTER TABLE sync_runs ADD COLUMN host TEXT`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE sync_runs DROP COLUMN host`.execute(db)
  await sql`ALTER TABLE sync_runs DROP COLUMN pid`.execute(db)
  await sql`ALTER TABLE geofences DROP COLUMN import_hash`.execute(db)
}
