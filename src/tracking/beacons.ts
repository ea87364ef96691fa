import {reportedId} from '../beacons/ids.js'
import {beaconJson} from '../beacons/json.js'
import type {Tx} from '../store/write.js'
import type {TrackInput} from './input.js'

type Ranged = NonNullable<TrackInput['beacons']>[number]

/**
 * The enabled beacons of the environment that the ranged identities name (`_id`, iBeacon
 * uuid/major/minor, Eddystone uid/instance, each compared in its stored form: beacons/ids.ts), as
 * the API returns beacons; each once, in input order.
 */
export function rangedBeacons(tx: Tx, live: boolean, ranged: readonly Ranged[]): Array<Record<string, unknown>> {
  const {db} = tx.store
  const seen = new Set<string>()
  const out: Array<Record<string, unknown>> = []
  for (const b of ranged) {
    let query = db.selectFrom('beacons').selectAll().where('live', '=', live ? 1 : 0).where('enabled', '=', 1)
    if (b._id !== undefined) query = query.where('id', '=', b._id)
    else if (b.uuid !== undefined) {
      query = query.where('uuid', '=', reportedId('uuid', b.uuid))
      if (b.major !== undefined) query = query.where('major', '=', reportedId('major', b.major))
      if (b.minor !== undefined) query = query.where('minor', '=', reportedId('minor', b.minor))
    } else {
      query = query.where('uid', '=', reportedId('uid', b.uid!))
      if (b.instance !== undefined) query = query.where('instance', '=', reportedId('instance', b.instance))
    }
    for (const row of tx.all(query.limit(10))) {
      if (seen.has(row.id)) continue
      seen.add(row.id)
      out.push(beaconJson(row))
    }
  }
  return out
}
