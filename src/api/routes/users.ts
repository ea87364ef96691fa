import {refuse} from '../../errors.js'
import {refreshSchema, userListQuery} from '../../users/input.js'
import {refreshUsers} from '../../users/refresh.js'
import {deleteUser, findUser, listUsers} from '../../users/store.js'
import {usersJson} from '../../users/view.js'
import {parse} from '../../validate.js'
import {pageStream} from '../paging.js'
import type {Api} from '../router.js'

/** `/v1/users`: users are created by track; here they are listed, read, deleted and refreshed. */
export function usersRoutes(api: Api): void {
  const {store} = api.ctx
  const opts = {auth: 'S', limit: 'data'} as const

  api.route('get', '/users', opts, async (req) => {
    const page = listUsers(store, req.auth.live, parse(userListQuery, req.query))
    return pageStream('users', page, async (rows) => (await usersJson(store, rows)).map((user) => JSON.stringify(user)))
  })

  api.route('post', '/users/refresh', opts, async (req) => {
    const input = parse(refreshSchema, req.body)
    // No push credentials can be configured yet, so every user lands in `failed` (DECISIONS).
    const result = await refreshUsers(store, req.auth.live, input.userIds, input.type, null)
    return {meta: {code: 200}, ...result}
  })

  api.route('get', '/users/:id', opts, async (req) => {
    const user = await findUser(store, req.auth.live, String(req.params.id))
    if (!user) throw refuse.notFound('user')
    const [json] = await usersJson(store, [user])
    return {meta: {code: 200}, user: json}
  })

  api.route('delete', '/users/:id', opts, async (req) => {
    if (!(await deleteUser(store, req.auth.live, String(req.params.id)))) throw refuse.notFound('user')
    return {meta: {code: 200}}
  })
}
