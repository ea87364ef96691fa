import {type Kysely, sql} from 'kysely'

/**
 * The trip-orders job (trips/orders.ts) reads, each minute, only the unfired open trips whose order
 * may be due: by status, then by when the order is due as far as the row knows, its scheduled
 * arrival (julian day) less its own threshold. Before, it read every unfired open trip with a
 * scheduled arrival, however far off. The expression is written here and in the job's query alike:
 * SQLite uses the index only for the same expression.
 */
export async function up(db: Kysely<any>): Promise<void> {
  await sql`CREATE INDEX trips_order_due ON trips (live, status, (julianday(scheduled_arrival_at) - coalesce(approaching_threshold, 0) / 1440.0))
    WHERE order_fired_at IS NULL AND scheduled_arrival_at IS NOT NULL`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`DROP INDEX trips_order_due`.execute(db)
}
