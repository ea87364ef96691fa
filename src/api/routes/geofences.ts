import type {Api} from '../router.js'

/** `/v1/geofences`: filled in by the data-management issue. */
export function geofencesRoutes(_api: Api): void {}
