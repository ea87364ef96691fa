import type {Migration} from 'kysely'
import * as m001 from './001_initial.js'
import * as m002 from './002_usage.js'
import * as m003 from './003_changes_outbox.js'
import * as m007 from './007_webhook_delivery.js'

/** Every migration, in order. Add new ones here; names sort as they run. */
export const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_usage': m002,
  '003_changes_outbox': m003,
  '007_webhook_delivery': m007,
}
