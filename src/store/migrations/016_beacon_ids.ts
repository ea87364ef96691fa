import type {Kysely} from 'kysely'
import {ID_FORMS, TYPE_IDS} from '../../beacons/ids.js'

/**
 * Beacon identifiers in their one stored form (beacons/ids.ts), as every write now stores them and
 * track compares them: a UUID stored upper case or without hyphens, an Eddystone id with `0x`, a
 * major `007` would otherwise never match what the SDK reports. Identifiers that are not
 * well-formed stay as they were (no SDK reports them; deleting or guessing would lose the user's
 * data): the beacon keeps being listed, and a PUT must give well-formed ones. `updated_at` is
 * left alone: the beacon is the same, only spelled one way.
 */
export async function up(db: Kysely<any>): Promise<void> {
  const rows = await db.selectFrom('beacons').select(['id', 'type', 'uuid', 'major', 'minor', 'uid', 'instance']).execute()
  for (const row of rows) {
    const fields = TYPE_IDS[row.type as keyof typeof TYPE_IDS] ?? []
    const set: Record<string, string> = {}
    for (const field of fields) {
      const stored = row[field] as string | null
      const canonical = stored === null ? undefined : ID_FORMS[field].canonical(stored)
      if (canonical !== undefined && canonical !== stored) set[field] = canonical
    }
    if (Object.keys(set).length) await db.updateTable('beacons').set(set).where('id', '=', row.id).execute()
  }
  // track looks ranged beacons up by these, now compared as stored (it scanned every beacon a ranged one)
  await db.schema.createIndex('beacons_ibeacon').on('beacons').columns(['live', 'uuid', 'major', 'minor']).execute()
  await db.schema.createIndex('beacons_eddystone').on('beacons').columns(['live', 'uid', 'instance']).execute()
}

/** The indexes go; the stored form stays: it is one the earlier code accepted and matched. */
export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('beacons_eddystone').execute()
  await db.schema.dropIndex('beacons_ibeacon').execute()
}
