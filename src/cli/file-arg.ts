import {statSync} from 'node:fs'
import {refuse} from '../errors.js'

/**
 * The size of a FILE argument; refuses one that is not a regular file, saying what it is instead:
 * `file: must be <what> (x does not exist)`.
 */
export function requireFile(file: string, what: string): number {
  const stat = statSync(file, {throwIfNoEntry: false})
  if (stat?.isFile()) return stat.size
  const is = !stat ? 'does not exist' : stat.isDirectory() ? 'is a directory' : 'is not a regular file'
  throw refuse.invalid('file', `must be ${what} (${file} ${is})`)
}
