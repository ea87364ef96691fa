import type {Generated} from 'kysely'

/**
 * The operational store. Timestamps are ISO 8601 strings in UTC with milliseconds (they sort as
 * text); booleans are 0/1; JSON columns hold text. Every resource row carries `live` (0 test, 1 live).
 */
export interface ApiKeyTable {
  id: string
  prefix: string
  hash: string
  type: 'publishable' | 'secret'
  live: number
  created_at: string
  revoked_at: string | null
  last_used_at: string | null
}

export interface SettingTable {
  live: number
  key: string
  value: string
  updated_at: string
}

export interface UserTable {
  id: string
  live: number
  user_id: string | null
  device_id: string | null
  install_id: string | null
  description: string | null
  metadata: string | null
  lng: number | null
  lat: number | null
  location_accuracy: number | null
  foreground: number | null
  stopped: number | null
  device_type: string | null
  device_os: string | null
  device_make: string | null
  device_model: string | null
  ip: string | null
  /** Derived context from the last track (geofences, place, regions, beacons, fraud) as JSON. */
  context: string | null
  /**
   * The geofences the user is inside, as JSON `[[geofenceId, enteredAt, dwelled (0/1), confidence
   * (1-3)], ...]` (migration 012; tracking/presence.ts); null when none was ever entered.
   */
  presence: string | null
  created_at: string
  updated_at: string
}

export interface GeofenceTable {
  id: string
  live: number
  tag: string | null
  external_id: string | null
  description: string
  type: 'circle' | 'polygon' | 'isochrone'
  geometry: string
  center_lng: number
  center_lat: number
  radius: number
  mode: string | null
  metadata: string | null
  user_id: string | null
  user_ids: string | null
  ip: string | null
  trip_approaching_threshold: number | null
  dwell_threshold: number | null
  enabled: number
  stop_detection: number | null
  operating_hours: string | null
  disable_after: string | null
  delete_after: string | null
  min_lng: number
  min_lat: number
  max_lng: number
  max_lat: number
  created_at: string
  updated_at: string
  /** The sync source that last wrote it (migration 006); `--prune` deletes only its own. */
  sync_source: string | null
  /** `<CSV row text hash> <updated_at>` of the import that wrote it (migration 008, src/sync/known.ts). */
  import_hash: string | null
}

export interface BeaconTable {
  id: string
  live: number
  tag: string | null
  external_id: string | null
  description: string
  type: 'ibeacon' | 'eddystone'
  uuid: string | null
  major: string | null
  minor: string | null
  uid: string | null
  instance: string | null
  lng: number
  lat: number
  enabled: number
  metadata: string | null
  created_at: string
  updated_at: string
}

export interface TripTable {
  id: string
  live: number
  external_id: string
  user_ref: string | null
  user_id: string | null
  mode: string
  destination_geofence_tag: string | null
  destination_geofence_external_id: string | null
  destination_lng: number | null
  destination_lat: number | null
  metadata: string | null
  approaching_threshold: number | null
  scheduled_arrival_at: string | null
  order_fired_at: string | null
  arrived_at: string | null
  completed_at: string | null
  ended_at: string | null
  status: string
  eta_duration: number | null
  eta_distance: number | null
  delayed: number
  scheduled_arrival_time_delay: number | null
  /** `routing` or `straightLine` (the fallback); null before any ETA. */
  eta_source: string | null
  created_at: string
  updated_at: string
}

export interface TripLocationTable {
  id: Generated<number>
  trip_id: string
  lng: number
  lat: number
  updated_at: string
}

export interface EventTable {
  id: string
  live: number
  type: string
  user_ref: string | null
  user_id: string | null
  /**
   * The event body as the API returns it, minus `_id`, `live`, `type`, timestamps, and minus the
   * JSON of its `parts` when it has some (events/parts.ts puts them back when the event is read).
   */
  payload: string
  created_at: string
  actual_created_at: string
  /** Keys in `event_parts`, comma-joined, whose JSON (comma-joined) goes at `parts_at` in `payload` (migration 015). */
  parts: string | null
  parts_at: number | null
}

/** A piece of JSON many events embed (a geofence summary in the user's `geofences`), stored once (migration 015). */
export interface EventPartTable {
  /** Of the JSON's content (events/parts.ts). */
  key: string
  json: string
}

export interface UsageTable {
  live: number
  /** `YYYY-MM`, UTC */
  month: string
  requests: number
}

/** One row per insert, update or delete of a followed table (written by triggers; see changes.ts). */
export interface ChangeTable {
  seq: Generated<number>
  live: number
  kind: ChangeKind
  /** The row's id (a setting's key). */
  ref: string
  deleted: number
}

export type ChangeKind = 'geofences' | 'beacons' | 'settings' | 'api_keys' | 'webhooks'

export interface WebhookTable {
  id: string
  live: number
  url: string
  /** JSON array of event types; null: every type. */
  types: string | null
  batch: number
  secret: string
  enabled: number
  created_at: string
  updated_at: string
}

/**
 * A delivery: one event to one webhook, written in the event's own transaction. Owed while
 * `pending` (never tried) or `failed` (retry at `next_attempt_at`); then `delivered` or `dead`.
 */
export interface WebhookOutboxTable {
  id: Generated<number>
  webhook_id: string
  event_id: string
  live: number
  status: 'pending' | 'delivered' | 'failed' | 'dead'
  attempts: number
  next_attempt_at: string
  lease_until: string | null
  /** The worker that claimed it until `lease_until` (migration 007). */
  lease_owner: string | null
  last_error: string | null
  created_at: string
  delivered_at: string | null
  /** The delivery this one re-sends (`loc webhooks replay`). */
  replay_of: number | null
}

/** One scalar metadata entry of a geofence, kept by triggers (migration 004) for metadata filters. */
export interface GeofenceMetadataTable {
  geofence_id: string
  live: number
  key: string
  value: string | number
  updated_at: string
}

export interface Database {
  api_keys: ApiKeyTable
  settings: SettingTable
  users: UserTable
  geofences: GeofenceTable
  geofence_metadata: GeofenceMetadataTable
  beacons: BeaconTable
  trips: TripTable
  trip_locations: TripLocationTable
  events: EventTable
  event_parts: EventPartTable
  usage: UsageTable
  changes: ChangeTable
  webhooks: WebhookTable
  webhook_outbox: WebhookOutboxTable
  sync_sources: SyncSourceTable
  sync_runs: SyncRunTable
}

/** A geofence CSV source synced on a schedule (migration 006). No secrets: `credentials` names a config profile. */
export interface SyncSourceTable {
  id: string
  live: number
  kind: 'url' | 's3'
  /** `https://…` or `s3://bucket/key`. */
  url: string
  region: string | null
  endpoint: string | null
  credentials: string | null
  schedule: string
  prune: number
  /** Of the last file imported: a download with the same ETag or SHA-256 is skipped. */
  etag: string | null
  hash: string | null
  created_at: string
  updated_at: string
}

export interface SyncRunTable {
  id: string
  source_id: string
  live: number
  trigger: 'schedule' | 'cli' | 'api'
  status: 'running' | 'succeeded' | 'skipped' | 'failed'
  created: number
  updated: number
  unchanged: number
  deleted: number
  failed: number
  error: string | null
  etag: string | null
  hash: string | null
  bytes: number | null
  started_at: string
  finished_at: string | null
  duration_ms: number | null
  /** The process running it (migration 008): a `running` run whose process is gone is marked failed. */
  pid: number | null
  host: string | null
}
