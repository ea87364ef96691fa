import {type Kysely, sql} from 'kysely'

/**
 * Each event embeds its user, and the user the geofences it is inside: at 100k geofences ~9
 * summaries, ~2 KB of a ~3 KB event, written again into every event. A summary is now stored once
 * in `event_parts` under a key of its content; an event keeps the keys (`parts`) and the place in
 * its payload where their JSON goes (`parts_at`). Events written before keep their whole payload.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE TABLE event_parts (key TEXT PRIMARY KEY, json TEXT NOT NULL)`.execute(db)
  await sql`ALTER TABLE events ADD COLUMN parts TEXT`.execute(db)
  await sql`ALTER TABLE events ADD COLUMN parts_at INTEGER`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  const parts = new Map((await db.selectFrom('event_parts').select(['key', 'json']).execute()).map((p) => [p.key as string, p.json as string]))
  const events = await db.selectFrom('events').select(['id', 'payload', 'parts', 'parts_at']).where('parts', 'is not', null).execute()
  for (const e of events) {
    const json = (e.parts as string).split(',').map((key) => parts.get(key)).join(',')
    const payload = (e.payload as string).slice(0, e.parts_at as number) + json + (e.payload as string).slice(e.parts_at as number)
    await db.updateTable('events').set({payload}).where('id', '=', e.id).execute()
  }
  await sql`ALTER TABLE events DROP COLUMN parts_at`.execute(db)
  await sql`ALTER TABLE events DROP COLUMN parts`.execute(db)
  await sql`DROP TABLE event_parts`.execute(db)
}
