import type {Selectable} from 'kysely'
import type {BeaconTable} from '../store/schema.js'

export type BeaconRow = Selectable<BeaconTable>

/** The spec's Beacon resource; only the identifier fields of the beacon's type appear. */
export function beaconJson(row: BeaconRow): Record<string, unknown> {
  const ids = row.type === 'ibeacon' ? {uuid: row.uuid, major: row.major, minor: row.minor} : {uid: row.uid, instance: row.instance}
  return {
    _id: row.id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    live: row.live === 1,
    description: row.description,
    tag: row.tag,
    externalId: row.external_id,
    type: row.type,
    ...ids,
    geometry: {type: 'Point', coordinates: [row.lng, row.lat]},
    enabled: row.enabled === 1,
    metadata: row.metadata ? JSON.parse(row.metadata) : {},
  }
}
