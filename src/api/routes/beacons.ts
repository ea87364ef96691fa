import type {Api} from '../router.js'

/** `/v1/beacons`: filled in by the data-management issue. */
export function beaconsRoutes(_api: Api): void {}
