import {statSync} from 'node:fs'
import {refuse} from '../errors.js'

/** Refuses a FILE argument that is not a regular file, saying what it is instead: `file: must be <what> (x does not exist)`. */
export function requireFile(file: string, what: string): void {
  const stat = statSync(file, {throwIfNoEntry: false})
  if (stat?.isFile()) return
  const is = !stat ? 'does not exist' : stat.isDirectory() ? 'is a directory' : 'is not a regular file'
  throw refuse.invalid('file', `must be ${what} (${file} ${is})`)
}
