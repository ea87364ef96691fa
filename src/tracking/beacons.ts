import {beaconJson} from '../beacons/json.js'
import type {Tx} from '../store/write.js'
import type {TrackInput} from './input.js'

type Ranged = NonNullable<TrackInput['beacons']>[number]

/**
 * The enabled beacons of the environment that the ranged identities name (`_id`, iBeacon
 * uuid/major/minor, Eddystone uid/instance), as the API returns beacons; each once, in input order.
 */
export function rangedBeacons(tx: Tx, live: boolean, ranged: readonly Ranged[]): Array<Record<string, unknown>> {
  const {db} = tx.store
  const seen = new Set<string>()
  const out: Array<Record<string, unknown>> = []
  for (const b of ranged) {
    let query = db.selectFrom('beacons').selectAll().where('live', '=', live ? 1 : 0).where('enabled', '=', 1)
    if (b._id !== undefined) query = query.where('id', '=', b._id)
    else if (b.uuid !== undefined) {
      query = query.where(db.fn('lower', ['uuid']), '=', b.uuid.toLowerCase())
      if (b.major !== undefined) query = query.where('major', '=', b.major)
      if (b.minor !== undefined) query = query.where('minor', '=', b.minor)
    } else {
      query = query.where(db.fn('lower', ['uid']), '=', b.uid!.toLowerCase())
      if (b.instance !== undefined) query = query.where(db.fn('lower', ['instance']), '=', b.instance.toLowerCase())
    }
    for (const row of tx.all(query.limit(10))) {
      if (seen.has(row.id)) continue
      seen.add(row.id)
      out.push(beaconJson(row))
    }
  }
  return out
}
