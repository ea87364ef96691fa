import type {Api} from '../router.js'

/** `/v1/trips`: filled in by the data-management issue. */
export function tripsRoutes(_api: Api): void {}
