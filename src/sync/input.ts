import {validate as validCron} from 'node-cron'
import {z} from 'zod'

/** `s3://bucket/key` → bucket and key; null when it is not that. */
export function s3Location(url: string): {bucket: string; key: string} | null {
  const m = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])\/(.+)$/.exec(url)
  return m ? {bucket: m[1], key: m[2]} : null
}

const httpUrl = z.string().refine((s) => {
  try {
    const u = new URL(s)
    return (u.protocol === 'https:' || u.protocol === 'http:') && !u.username && !u.password
  } catch {
    return false
  }
}, {message: 'must be an http(s) URL without user:password (give credentials with --credentials, a profile in the config file)'})

/** What `loc geofences sync add` takes. Credentials are named (a config profile), never given. */
export const syncSourceSchema = z.object({
  url: httpUrl.optional(),
  s3: z.string().refine((s) => s3Location(s) !== null, {message: 'must be s3://bucket/key'}).optional(),
  region: z.string().regex(/^[a-z0-9-]+$/, {message: 'must be an AWS region name such as eu-west-1'}).optional(),
  endpoint: z.string().url({message: 'must be the URL of an S3-compatible endpoint'}).optional(),
  credentials: z.string().min(1).optional(),
  schedule: z.string().refine((s) => validCron(s), {message: 'must be a cron expression such as "0 3 * * *" (minute hour day month weekday)'}).optional(),
  prune: z.boolean().default(false),
}).superRefine((v, ctx) => {
  if ((v.url === undefined) === (v.s3 === undefined)) ctx.addIssue({code: 'custom', path: ['url'], message: 'give exactly one of --url and --s3'})
  for (const key of ['region', 'endpoint'] as const) {
    if (v[key] !== undefined && v.s3 === undefined) ctx.addIssue({code: 'custom', path: [key], message: 'only for --s3 sources'})
  }
})

export type SyncSourceInput = z.output<typeof syncSourceSchema>

/** `POST /v1/geofences/sync`: which source; optional when the environment has one. */
export const syncStartSchema = z.object({sourceId: z.string().min(1).optional()})
