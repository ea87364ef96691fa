import type {Migration} from 'kysely'
import * as m001 from './001_initial.js'
import * as m002 from './002_usage.js'
import * as m003 from './003_changes_outbox.js'
import * as m004 from './004_geofence_metadata.js'
import * as m005 from './005_tracking.js'
import * as m006 from './006_sync.js'
import * as m007 from './007_webhook_delivery.js'
import * as m008 from './008_import_hash.js'
import * as m009 from './009_user_location.js'
import * as m010 from './010_track_writes.js'
import * as m011 from './011_presence_stamp.js'
import * as m012 from './012_presence_in_user.js'
import * as m013 from './013_presence_only_in_user.js'
import * as m014 from './014_events_user_ref_logged_out.js'
import * as m015 from './015_event_parts.js'
import * as m016 from './016_beacon_ids.js'
import * as m017 from './017_trip_order_due.js'

/** Every migration, in order. Add new ones here; names sort as they run. */
export const migrations: Record<string, Migration> = {
  '001_initial': m001,
  '002_usage': m002,
  '003_changes_outbox': m003,
  '004_geofence_metadata': m004,
  '005_tracking': m005,
  '006_sync': m006,
  '007_webhook_delivery': m007,
  '008_import_hash': m008,
  '009_user_location': m009,
  '010_track_writes': m010,
  '011_presence_stamp': m011,
  '012_presence_in_user': m012,
  '013_presence_only_in_user': m013,
  '014_events_user_ref_logged_out': m014,
  '015_event_parts': m015,
  '016_beacon_ids': m016,
  '017_trip_order_due': m017,
}
