import type {Job} from '../jobs/index.js'

/** Expires trips that saw no update for `trips.expireAfterHours` (filled in by the trips work). */
export const tripExpiryJob: Job = {
  name: 'trip-expiry',
  everyMs: 60_000,
  async run() {
    return undefined
  },
}
