import type {Store} from '../store/db.js'
import {writeGrouped} from '../store/write.js'
import {userJson} from '../users/json.js'
import {findUserByIds} from '../users/store.js'
import {numeric} from '../validate.js'
import type {EventRow} from './json.js'
import {recordEvents} from './recorder.js'

export interface ConversionInput {
  name: string
  metadata?: Record<string, string | number | boolean> | null
  revenue?: number
  userId?: string | null
  deviceId?: string | null
  installId?: string | null
  createdAt?: string
  duration?: number
}

/**
 * Logs a conversion. Revenue may also arrive as `metadata.revenue` (compat; `revenue` wins). When
 * `userId` or `deviceId` names a known user, the event embeds that user. Conversions are always
 * stored (`events.types` filters the events loc generates, not the ones a client logs) and owe
 * their webhook deliveries like any event.
 */
export async function logConversion(store: Store, live: boolean, input: ConversionInput): Promise<EventRow> {
  const user = await findUserByIds(store, live, input)
  const revenue = input.revenue ?? asNumber(input.metadata?.revenue)
  const body: Record<string, unknown> = {
    name: input.name,
    metadata: input.metadata ?? {},
    ...(revenue === undefined ? {} : {revenue}),
    ...(input.duration === undefined ? {} : {duration: input.duration}),
    ...(input.installId ? {installId: input.installId} : {}),
    ...(user ? {user: userJson(user, store)} : {userId: input.userId ?? null, ...(input.deviceId ? {deviceId: input.deviceId} : {})}),
  }
  const event = {type: 'conversion', userRef: user?.id ?? null, userId: user?.user_id ?? input.userId ?? null, createdAt: input.createdAt, body}
  return writeGrouped(store, (tx) => recordEvents(tx, live, [event], {logged: true})[0])
}

function asNumber(value: unknown): number | undefined {
  const n = numeric(value)
  return typeof n === 'number' ? n : undefined
}
