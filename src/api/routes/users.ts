import type {Api} from '../router.js'

/** `/v1/users`: filled in by the data-management issue. */
export function usersRoutes(_api: Api): void {}
