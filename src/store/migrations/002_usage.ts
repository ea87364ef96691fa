import type {Kysely} from 'kysely'

/** Requests answered per environment and calendar month (UTC), for `project.monthlyRequestQuota`. */
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.createTable('usage')
    .addColumn('live', 'integer', (c) => c.notNull())
    .addColumn('month', 'text', (c) => c.notNull())
    .addColumn('requests', 'integer', (c) => c.notNull())
    .addPrimaryKeyConstraint('usage_pk', ['live', 'month'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('usage').execute()
}
