import type {Config} from '../config/index.js'
import type {SyncSource} from './sources.js'

type Profile = Config['sync']['credentials'][string]
export type UrlCredentials = {authorization: string}
export type S3Credentials = {accessKeyId: string; secretAccessKey: string; sessionToken?: string}

/** What a profile must hold for a kind of source: URL downloads send `authorization`, S3 signs with a key pair. */
const NEEDS = {url: ['authorization'], s3: ['accessKeyId', 'secretAccessKey']} as const

/** Why a profile cannot serve a kind of source, or null when it can (the values are not read). */
export function profileMisfit(kind: SyncSource['kind'], profile: Profile): string | null {
  const missing = NEEDS[kind].filter((field) => !profile[field])
  if (!missing.length) return null
  return `has no ${missing.join(' or ')}, which ${kind === 's3' ? 'S3' : 'URL'} sources need`
}

/** Why a source's credentials cannot be used; the message names profiles and variables, never a value. */
export class CredentialsFailed extends Error {}

/**
 * The credentials a source's profile gives, its `env:NAME` values read now; undefined for a source
 * without a profile (S3 then uses the AWS SDK's default chain). A profile that is missing, does not
 * fit the source or names an unset variable fails the run before anything is downloaded: falling
 * back to no credentials, or to the SDK's ambient ones, would sync with someone else's rights.
 */
export function sourceCredentials(source: Pick<SyncSource, 'kind' | 'credentials'>, config: Config): UrlCredentials | S3Credentials | undefined {
  const name = source.credentials
  if (name === null) return undefined
  const profile = config.sync.credentials[name]
  if (!profile) {
    throw new CredentialsFailed(`credentials profile "${name}" is not in the config this process read when it started (sync.credentials); restart \`loc serve\` after adding or changing a profile`)
  }
  const misfit = profileMisfit(source.kind, profile)
  if (misfit) throw new CredentialsFailed(`credentials "${name}" ${misfit}`)
  const read = (value: string | undefined): string | undefined => {
    if (value === undefined || !value.startsWith('env:')) return value
    const variable = value.slice(4)
    const found = process.env[variable]
    if (found === undefined) throw new CredentialsFailed(`credentials "${name}": environment variable ${variable} is not set`)
    if (found === '') throw new CredentialsFailed(`credentials "${name}": environment variable ${variable} is empty`)
    return found
  }
  if (source.kind === 'url') return {authorization: read(profile.authorization)!}
  const sessionToken = read(profile.sessionToken)
  return {accessKeyId: read(profile.accessKeyId)!, secretAccessKey: read(profile.secretAccessKey)!, ...(sessionToken ? {sessionToken} : {})}
}
