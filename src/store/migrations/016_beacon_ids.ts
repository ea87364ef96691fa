import type {Kysely} from 'kysely'

// the rules of src/beacons/ids.ts as they were when this migration was written: a migration must
// do the same thing whenever a store runs it, whatever the code does by then
const UUID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/
const hex = (digits: number) => (text: string) => {
  const bare = text.toLowerCase().replace(/^0x/, '')
  return new RegExp(`^[0-9a-f]{${digits}}$`).test(bare) ? bare : undefined
}
const short = (text: string) => (/^[0-9]{1,5}$/.test(text) && Number(text) <= 65535 ? String(Number(text)) : undefined)
const ID_FORMS: Record<string, {canonical(text: string): string | undefined}> = {
  uuid: {canonical: (text) => (UUID.test(text.toLowerCase()) ? text.toLowerCase().replace(UUID, '$1-$2-$3-$4-$5') : undefined)},
  major: {canonical: short}, minor: {canonical: short},
  uid: {canonical: hex(20)}, instance: {canonical: hex(12)},
}
const TYPE_IDS = {ibeacon: ['uuid', 'major', 'minor'], eddystone: ['uid', 'instance']} as const

/**
 * Beacon identifiers in their one stored form (beacons/ids.ts, frozen above), as every write now stores them and
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
