import type {Job} from '../jobs/index.js'

/** Carries out `disableAfter` and `deleteAfter` (filled in by the data-management issue). */
export const geofenceExpiryJob: Job = {
  name: 'geofence-expiry',
  everyMs: 10_000,
  async run() {
    return undefined
  },
}
