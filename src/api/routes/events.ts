import type {Api} from '../router.js'

/** `/v1/events`: filled in by the data-management issue. */
export function eventsRoutes(_api: Api): void {}
