import {existsSync, readFileSync} from 'node:fs'
import path from 'node:path'
import {fileURLToPath} from 'node:url'
import {z} from 'zod'

/** The package root: `src/config` and `dist/config` both sit two levels below it. */
export const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..')
/** loc's version, from its package.json: the health check's `version`, sync downloads' User-Agent. */
export const VERSION = (JSON.parse(readFileSync(path.join(PACKAGE_ROOT, 'package.json'), 'utf8')) as {version: string}).version

const rateLimits = z.object({
  track: z.number().positive(),
  geocode: z.number().positive(),
  ipGeocode: z.number().positive(),
  search: z.number().positive(),
  searchPlaces: z.number().positive(),
  validate: z.number().positive(),
  matrix: z.number().positive(),
  routing: z.number().positive(),
  data: z.number().positive(),
  staticMaps: z.number().positive(),
  config: z.number().positive(),
})

const configSchema = z.object({
  dataDir: z.string().min(1),
  host: z.string().min(1),
  port: z.number().int().min(0).max(65535),
  logLevel: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']),
  server: z.object({
    trustProxy: z.boolean(),
    bodyLimitBytes: z.number().int().positive(),
    shutdownTimeoutMs: z.number().int().positive(),
    /** Open connections at once; 0: the process's open-file limit less 128 (for SQLite, map files, logs). */
    maxConnections: z.number().int().min(0),
    headersTimeoutMs: z.number().int().positive(),
    requestTimeoutMs: z.number().int().positive(),
    keepAliveTimeoutMs: z.number().int().positive(),
    maxHeaderBytes: z.number().int().min(1024),
  }),
  cors: z.object({origins: z.array(z.string())}),
  rateLimits,
  sync: z.object({
    /** Cron expression for syncs added without `--schedule` (default nightly, 03:00). */
    schedule: z.string().min(1),
    timeoutMs: z.number().int().positive(),
    maxBytes: z.number().int().positive(),
    /** Allow URL sources on loopback and private addresses (tests, intranets). */
    allowPrivateUrls: z.boolean(),
    /** Named credential profiles for sync sources; a value `env:NAME` is read from that variable. */
    credentials: z.record(z.string(), z.object({
      accessKeyId: z.string().optional(),
      secretAccessKey: z.string().optional(),
      sessionToken: z.string().optional(),
      authorization: z.string().optional(),
    })),
  }),
  /** Webhook delivery (src/webhooks, docs/api/webhooks.md). */
  webhooks: z.object({
    /** Private, loopback and link-local targets are refused unless this is on (a receiver on the same host or network). */
    allowPrivate: z.boolean(),
    timeoutMs: z.number().int().positive(),
    /** How long a claimed delivery is reserved for its worker; longer than the timeout. */
    leaseMs: z.number().int().positive(),
    /** Delays before each retry (jittered ±20 %); a delivery is dead after the last one fails. */
    retryDelaysMs: z.array(z.number().int().nonnegative()).min(1),
    /** Webhooks with a request in flight at once (each has at most one: deliveries are ordered). */
    concurrency: z.number().int().positive(),
    /** How often a worker looks for deliveries written by other processes and retries now due. */
    pollMs: z.number().int().positive(),
  }).refine((w) => w.leaseMs > w.timeoutMs, {message: 'leaseMs must exceed timeoutMs'}),
})

export type Config = z.infer<typeof configSchema>
export type RateLimitGroup = keyof Config['rateLimits']

type Json = Record<string, unknown>

export interface LoadOptions {
  /** An extra JSON file (`--config FILE`), applied over the defaults and `config/local.json`. */
  file?: string
  env?: NodeJS.ProcessEnv
  /** Last word, e.g. CLI flags such as `--port`. */
  overrides?: Json
}

/** defaults < config/local.json < --config FILE < LOC_* environment < overrides; validated once. */
export function loadConfig(options: LoadOptions = {}): Config {
  const defaults = readJson(path.join(PACKAGE_ROOT, 'config', 'default.json'))
  let merged = defaults
  const local = path.join(PACKAGE_ROOT, 'config', 'local.json')
  if (existsSync(local)) merged = deepMerge(merged, readJson(local))
  if (options.file) merged = deepMerge(merged, readJson(path.resolve(options.file)))
  merged = deepMerge(merged, fromEnv(options.env ?? process.env, defaults))
  if (options.overrides) merged = deepMerge(merged, stripUndefined(options.overrides))
  const parsed = configSchema.safeParse(merged)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    throw new Error(`invalid configuration: ${issue.path.join('.')}: ${issue.message}`)
  }
  const config = parsed.data
  config.dataDir = path.resolve(PACKAGE_ROOT, config.dataDir)
  return config
}

function readJson(file: string): Json {
  try {
    return JSON.parse(readFileSync(file, 'utf8'))
  } catch (error) {
    throw new Error(`cannot read config file ${file}: ${(error as Error).message}`)
  }
}

/**
 * `LOC_DATA_DIR` → dataDir, `LOC_RATE_LIMITS__TRACK` → rateLimits.track: `__` separates levels and
 * each level matches a default key case- and underscore-insensitively. Values are JSON when they parse.
 */
function fromEnv(env: NodeJS.ProcessEnv, defaults: Json): Json {
  const out: Json = {}
  for (const [name, raw] of Object.entries(env)) {
    if (!name.startsWith('LOC_') || raw === undefined) continue
    const segments = name.slice(4).split('__')
    let schemaLevel: unknown = defaults
    let target = out
    const keys: string[] = []
    for (const segment of segments) {
      const wanted = segment.replace(/_/g, '').toLowerCase()
      const key = schemaLevel && typeof schemaLevel === 'object'
        ? Object.keys(schemaLevel).find((k) => k.toLowerCase() === wanted)
        : undefined
      if (!key) break
      keys.push(key)
      schemaLevel = (schemaLevel as Json)[key]
    }
    if (keys.length !== segments.length) continue
    for (const key of keys.slice(0, -1)) target = (target[key] ??= {}) as Json
    target[keys.at(-1)!] = parseValue(raw)
  }
  return out
}

function parseValue(raw: string): unknown {
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

function stripUndefined(obj: Json): Json {
  return Object.fromEntries(Object.entries(obj).filter(([, v]) => v !== undefined))
}

function deepMerge(base: Json, over: Json): Json {
  const out: Json = {...base}
  for (const [key, value] of Object.entries(over)) {
    const current = out[key]
    out[key] = isPlainObject(current) && isPlainObject(value) ? deepMerge(current, value) : value
  }
  return out
}

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}
