import {createHash} from 'node:crypto'
import {createWriteStream} from 'node:fs'
import {Readable, Transform} from 'node:stream'
import {pipeline} from 'node:stream/promises'
import {type Config, VERSION} from '../config/index.js'
import {literalPrivate, publicLookup} from '../webhooks/target.js'
import type {S3Credentials, UrlCredentials} from './credentials.js'
import {s3Location} from './input.js'
import {displayUrl, type SyncSource} from './sources.js'

/** A file fetched to disk, or word that the source has not changed since `etag`. */
export type Fetched = {notModified: true} | {notModified: false; bytes: number; hash: string; etag: string | null}

/** Who is asking, for the logs of the server a file comes from. */
const USER_AGENT = `loc/${VERSION}`

/** Why a download failed, in words for the run record (never a credential). */
export class DownloadFailed extends Error {}

/**
 * Refuses a private or loopback source unless `sync.allowPrivateUrls`. A literal address is checked
 * here; a name is checked as the connection resolves it (`publicLookup`): the address checked is the
 * address connected to, so a name cannot be re-pointed inside the network in between (DNS rebinding).
 */
function refuseLiteralPrivate(url: URL, config: Config): void {
  if (!config.sync.allowPrivateUrls && literalPrivate(url)) throw privateRefused(url.hostname)
}

const privateRefused = (host: string, resolved = false) =>
  new DownloadFailed(`${host} ${resolved ? 'resolves to' : 'is'} a private or loopback address; set sync.allowPrivateUrls in the config to allow it`)

/**
 * Downloads a source to `file`, hashing as it streams (SHA-256). Refuses what would import a partial
 * file: an HTTP error, a timeout (`sync.timeoutMs` for the whole download), a body shorter than its
 * Content-Length, more than `sync.maxBytes`. `etag` asks the server for "not modified".
 */
export async function download(source: SyncSource, config: Config, file: string, etag: string | null, credentials: UrlCredentials | S3Credentials | undefined): Promise<Fetched> {
  const signal = AbortSignal.timeout(config.sync.timeoutMs)
  try {
    return source.kind === 's3'
      ? await fromS3(source, config, file, etag, signal, credentials as S3Credentials | undefined)
      : await fromUrl(source, config, file, etag, signal, credentials as UrlCredentials | undefined)
  } catch (error) {
    if (error instanceof DownloadFailed) throw error
    if (signal.aborted) throw new DownloadFailed(`timed out after ${config.sync.timeoutMs} ms`)
    throw new DownloadFailed(`download failed: ${(error as Error).message}`)
  }
}

async function fromUrl(source: SyncSource, config: Config, file: string, etag: string | null, signal: AbortSignal, credentials: UrlCredentials | undefined): Promise<Fetched> {
  const headers: Record<string, string> = {'user-agent': USER_AGENT}
  if (credentials) headers.authorization = credentials.authorization
  if (etag) headers['if-none-match'] = etag
  // undici's own fetch, so its Agent (the connect-time lookup) always matches it
  const {Agent, fetch} = await import('undici')
  const dispatcher = new Agent(config.sync.allowPrivateUrls ? {} : {connect: {lookup: publicLookup()}})
  let url = new URL(source.url)
  try {
    for (let hops = 0; ; hops++) {
      refuseLiteralPrivate(url, config)
      const response = await fetch(url, {headers, signal, redirect: 'manual', dispatcher}).catch((error: Error & {cause?: {code?: string}}) => {
        throw error.cause?.code === 'EPRIVATE' ? privateRefused(url.hostname, true) : error
      })
      if (response.status >= 300 && response.status < 400 && response.status !== 304 && response.headers.get('location')) {
        await response.body?.cancel()
        if (hops >= 5) throw new DownloadFailed('too many redirects')
        const next = new URL(response.headers.get('location')!, url)
        // as fetch and curl do: the credentials are for the source's origin only (scheme, host, port;
        // so an https → http downgrade drops them too), and once dropped they stay dropped
        if (next.origin !== url.origin) delete headers.authorization
        url = next
        continue
      }
      if (response.status === 304) return {notModified: true}
      if (!response.ok || !response.body) {
        await response.body?.cancel()
        throw new DownloadFailed(`HTTP ${response.status} from ${displayUrl(url.href)}`)
      }
      const length = response.headers.get('content-length')
      const saved = await save(Readable.fromWeb(response.body as import('node:stream/web').ReadableStream), file, config.sync.maxBytes, length === null ? undefined : Number(length), signal)
      return {notModified: false, ...saved, etag: response.headers.get('etag')}
    }
  } finally {
    void dispatcher.close()
  }
}

/** Without `credentials` (a source without a profile) the AWS SDK's default chain signs. */
async function fromS3(source: SyncSource, config: Config, file: string, etag: string | null, signal: AbortSignal, credentials: S3Credentials | undefined): Promise<Fetched> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED ??= 'true'
  const {S3Client, GetObjectCommand} = await import('@aws-sdk/client-s3')
  const {bucket, key} = s3Location(source.url)!
  const client = new S3Client({
    region: source.region ?? process.env.AWS_REGION ?? 'us-east-1',
    ...(source.endpoint ? {endpoint: source.endpoint, forcePathStyle: true} : {}),
    ...(credentials ? {credentials} : {}),
    maxAttempts: 2,
    customUserAgent: USER_AGENT,
  })
  try {
    const object = await client.send(new GetObjectCommand({Bucket: bucket, Key: key, ...(etag ? {IfNoneMatch: etag} : {})}), {abortSignal: signal})
    const saved = await save(object.Body as Readable, file, config.sync.maxBytes, object.ContentLength, signal)
    return {notModified: false, ...saved, etag: object.ETag ?? null}
  } catch (error) {
    const e = error as {name?: string; $metadata?: {httpStatusCode?: number}}
    if (e.$metadata?.httpStatusCode === 304) return {notModified: true}
    if (e.$metadata?.httpStatusCode) throw new DownloadFailed(`S3 ${e.name ?? 'error'} (HTTP ${e.$metadata.httpStatusCode}) for ${source.url}`)
    throw error
  } finally {
    client.destroy()
  }
}

/**
 * Streams `body` to `file`. A body that ends early says so: fewer bytes than its Content-Length, or
 * (without one) the connection closed before the end; not the HTTP client's bare "terminated".
 */
async function save(body: Readable, file: string, maxBytes: number, expected: number | undefined, signal: AbortSignal): Promise<{bytes: number; hash: string}> {
  const hash = createHash('sha256')
  let bytes = 0
  let readFailed: Error | undefined
  body.once('error', (error) => (readFailed = error))
  const meter = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      bytes += chunk.length
      if (bytes > maxBytes) return done(new DownloadFailed(`larger than sync.maxBytes (${maxBytes} bytes)`))
      hash.update(chunk)
      done(null, chunk)
    },
  })
  const announced = expected !== undefined && Number.isFinite(expected) ? expected : undefined
  const truncated = () => new DownloadFailed(`truncated: received ${bytes} of the ${announced} bytes its Content-Length announced`)
  try {
    await pipeline(body, meter, createWriteStream(file))
  } catch (error) {
    // a timeout is the caller's to word; a failed write (a full disk) is not the connection's
    if (error instanceof DownloadFailed || signal.aborted || !readFailed) throw error
    if (announced !== undefined && bytes < announced) throw truncated()
    throw new DownloadFailed(`the connection closed after ${bytes} bytes, before the end of the file (${readFailed.message})`)
  }
  if (announced !== undefined && bytes !== announced) throw truncated()
  return {bytes, hash: hash.digest('hex')}
}
