import {accessSync, constants, mkdirSync, statSync} from 'node:fs'
import path from 'node:path'
import {type Refusal, refuse} from './errors.js'

/**
 * Creates the data directory and its missing parents, or refuses it (`data-dir`, invalid input)
 * saying why: a file in its path, a directory this user may not write, a file system that takes no
 * new directories. The missing parents are found and made one by one rather than by a recursive
 * mkdir, which on node 20 never returns under /proc.
 */
export function makeDataDir(dir: string): void {
  const full = path.resolve(dir)
  const missing: string[] = []
  for (let at = full; ; at = path.dirname(at)) {
    const found = statOf(at)
    if (found?.isDirectory()) break
    if (found) throw refused(`${at === full ? '' : `cannot create ${full}: `}${at} is a file, not a directory`)
    missing.unshift(at)
    if (path.dirname(at) === at) break
  }
  for (const at of missing) {
    try {
      mkdirSync(at)
    } catch (error) {
      if (isCode(error, 'EEXIST') && statOf(at)?.isDirectory()) continue // made meanwhile by another process
      throw refused(`cannot create ${at}: ${path.dirname(at)} ${why(error)}`)
    }
  }
  try {
    accessSync(full, constants.W_OK | constants.X_OK)
  } catch (error) {
    throw refused(`${full} ${why(error)}`)
  }
}

/** `at`'s stat; undefined when nothing is there, or a file stands in its path (the walk up finds that file). */
function statOf(at: string) {
  try {
    return statSync(at)
  } catch (error) {
    if (isCode(error, 'ENOENT') || isCode(error, 'ENOTDIR')) return undefined
    throw refused(`cannot look up ${at}: ${(error as Error).message}`)
  }
}

const isCode = (error: unknown, code: string) => (error as NodeJS.ErrnoException).code === code

/** What a directory's mkdir or access error says of it. */
function why(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code ?? ''
  return WHY[code] ?? `cannot be written (${(error as Error).message})`
}

const WHY: Record<string, string> = {
  EACCES: 'is not writable by this user',
  EPERM: 'is not writable by this user',
  EROFS: 'is on a read-only file system',
  // mkdir in an existing directory that answers ENOENT: /proc and its kind
  ENOENT: 'takes no new directories',
  ENOSPC: 'is on a full disk',
  EDQUOT: 'is over its disk quota',
}

const refused = (why: string): Refusal =>
  refuse.invalid('data-dir', `${why}; give a data directory this user can create and write (--data-dir, LOC_DATA_DIR)`)
