import {type Kysely, sql} from 'kysely'

/**
 * `users.presence_stamp`: written by every track with the user's presence, unique to the writing
 * process, so a process whose cached presence carries the stamp it reads knows no other process has
 * moved that presence since, and skips reading it (tracking/presence.ts).
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE users ADD COLUMN presence_stamp INTEGER`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`ALTER TABLE users DROP COLUMN presence_stamp`.execute(db)
}
