/**
 * Beacon identifiers in the one form loc stores and compares: the form the hosted SDKs report
 * (iOS and Android give an iBeacon UUID hyphenated, in either case; Eddystone ids as bare hex).
 * Beacon bodies, CSV rows, the `beacons.uuids`/`beacons.uids` settings and the identities a track
 * ranges all go through these, so one beacon has one spelling everywhere (migration 016 rewrote
 * stored ones with a frozen copy of these rules).
 */
export interface IdForm {
  /** The stored form of `text`; undefined when `text` is not such an identifier. */
  canonical(text: string): string | undefined
  /** What is valid, as an error message words it after "must be". */
  statement: string
}

const UUID = /^([0-9a-f]{8})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{4})-?([0-9a-f]{12})$/

/** iBeacon proximity UUID: 8-4-4-4-12 or 32 hex digits, any case; stored lower case, hyphenated. */
export const UUID_ID: IdForm = {
  canonical: (text) => {
    const lower = text.toLowerCase()
    return UUID.test(lower) ? lower.replace(UUID, '$1-$2-$3-$4-$5') : undefined
  },
  statement: 'an iBeacon UUID: 32 hex digits, as 8-4-4-4-12 (f7826da6-4fa2-4e98-8024-bc5b71e0893e)',
}

/** `bytes` bytes as hex digits, any case, an optional 0x; stored lower case without the 0x. */
function hexBytes(bytes: number, statement: string): IdForm {
  const hex = new RegExp(`^[0-9a-f]{${bytes * 2}}$`)
  return {
    canonical: (text) => {
      const bare = text.toLowerCase().replace(/^0x/, '')
      return hex.test(bare) ? bare : undefined
    },
    statement,
  }
}

/** Eddystone-UID namespace. */
export const NAMESPACE_ID = hexBytes(10, 'an Eddystone namespace: 10 bytes as 20 hex digits (edd1ebeac04e5defa017)')
/** Eddystone-UID instance. */
export const INSTANCE_ID = hexBytes(6, 'an Eddystone instance: 6 bytes as 12 hex digits (0123456789ab)')

/** iBeacon major or minor: 2 bytes, given as decimal digits; stored without leading zeros. */
export const SHORT_ID: IdForm = {
  canonical: (text) => (/^[0-9]{1,5}$/.test(text) && Number(text) <= 65535 ? String(Number(text)) : undefined),
  statement: 'an integer from 0 to 65535',
}

/** Each identifier field's form, whatever the beacon's type. */
export const ID_FORMS = {uuid: UUID_ID, major: SHORT_ID, minor: SHORT_ID, uid: NAMESPACE_ID, instance: INSTANCE_ID} as const

export type IdField = keyof typeof ID_FORMS

/** The identifiers each type needs (spec: uuid, major, minor for ibeacon; uid, instance for eddystone). */
export const TYPE_IDS = {ibeacon: ['uuid', 'major', 'minor'], eddystone: ['uid', 'instance']} as const satisfies Record<string, readonly IdField[]>

/**
 * A ranged identifier as track compares it: its stored form when well-formed, else as sent (then it
 * can match only a row stored with that very text before ids were checked).
 */
export const reportedId = (field: IdField, text: string): string => ID_FORMS[field].canonical(text) ?? text
