import type {Kysely} from 'kysely'
import type {Database} from '../store/schema.js'

/** The destination geofence's `geometryCenter` as `[lng, lat]`, or undefined when no such geofence exists. */
export async function destinationOf(db: Kysely<Database>, live: boolean, tag: string, externalId: string): Promise<[number, number] | undefined> {
  const row = await db.selectFrom('geofences').select(['center_lng', 'center_lat'])
    .where('live', '=', live ? 1 : 0).where('tag', '=', tag).where('external_id', '=', externalId)
    .executeTakeFirst()
  return row && [row.center_lng, row.center_lat]
}
