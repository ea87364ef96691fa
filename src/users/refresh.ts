import type {Store} from '../store/db.js'
import {findUser} from './store.js'

export type RefreshType = 'silentPush' | 'pushExtension'

/** Sends the silent push that makes a device track; absent until push credentials exist in the config. */
export type PushSender = (user: {_id: string; userId: string | null; deviceId: string | null}, type: RefreshType) => Promise<void>

export interface RefreshResult {
  sent: Array<{userId: string}>
  failed: Array<{userId: string; reason: string}>
}

/**
 * Asks each named user's device for a fresh location. Failures are per user, inside the result
 * (spec): unknown users, and every user while no push sender is configured (DECISIONS).
 */
export async function refreshUsers(store: Store, live: boolean, userIds: string[], type: RefreshType, push: PushSender | null): Promise<RefreshResult> {
  const result: RefreshResult = {sent: [], failed: []}
  for (const userId of userIds) {
    const user = await findUser(store, live, userId)
    if (!user) {
      result.failed.push({userId, reason: 'user not found'})
      continue
    }
    if (!push) {
      result.failed.push({userId, reason: 'push not configured'})
      continue
    }
    try {
      await push({_id: user.id, userId: user.user_id, deviceId: user.device_id}, type)
      result.sent.push({userId})
    } catch (error) {
      result.failed.push({userId, reason: (error as Error).message})
    }
  }
  return result
}
