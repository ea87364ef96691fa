import {type Config, Errors} from '@oclif/core'
import {isRefusal, type Refusal, refuse} from '../errors.js'
import {storeRefusal} from '../store/write.js'

/** What `loc` prints for a command that did not succeed, and its exit code (docs/errors.md, "In the CLI"). */
interface Failure {
  line: string
  exit: number
}

/**
 * The one place a failure becomes one line on stderr and a stable exit code: a refusal (ours,
 * SQLite's busy store or full disk, oclif's parse errors and unknown commands as
 * `invalid_parameter`) prints `error [code]: message` and exits 2 for invalid input, 1 otherwise;
 * an `error(message, {exit})` of a command prints `error: message` with its code; anything else
 * is an unexpected fault, `error [internal]: …`, exit 1.
 * `command` is the command's id (`keys:create`), to point at its help.
 */
function failureOf(error: unknown, config?: Config, command?: string): Failure {
  const refusal = isRefusal(error) ? error : (storeRefusal(error) ?? parseRefusal(error, command) ?? unknownCommand(error, config))
  if (refusal) return {line: `error [${refusal.code}]: ${oneLine(refusal.message)}`, exit: refusal.status === 400 ? 2 : 1}
  if (error instanceof Errors.CLIError) return {line: `error: ${oneLine(error.message)}`, exit: error.oclif.exit ?? 1}
  const message = error instanceof Error ? error.message : String(error)
  return {line: `error [internal]: ${oneLine(message)} (LOC_LOG_LEVEL=debug prints the stack)`, exit: 1}
}

/** Prints `error`'s line (and its stack at LOC_LOG_LEVEL=debug) and returns the exit to throw; an exit passes through. */
export function report(error: unknown, config?: Config, command?: string): Errors.ExitError {
  if (error instanceof Errors.ExitError) return error
  const {line, exit} = failureOf(error, config, command)
  process.stderr.write(`${line}\n`)
  const debug = ['debug', 'trace'].includes(process.env.LOC_LOG_LEVEL ?? '')
  if (debug && error instanceof Error && !isRefusal(error)) process.stderr.write(`${error.stack}\n`)
  return new Errors.ExitError(exit)
}

const oneLine = (text: string) => stripAnsi(text).split('\n').map((l) => l.trim()).filter(Boolean).join('; ')

// eslint-disable-next-line no-control-regex
const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;]*m/g, '')

/** oclif's parse errors (several lines, with a hint) as one `invalid_parameter` line naming the flag or argument. */
function parseRefusal(error: unknown, command?: string): Refusal | undefined {
  // a flag's own parser throws a plain Error that oclif rewrites as `Parsing --flag …`
  if (!(error instanceof Errors.CLIError || (error instanceof Error && error.message.startsWith('Parsing --')))) return undefined
  const text = stripAnsi(error.message).replace(/\s*See more help with --help\s*$/, '')
  const statement = PARSE_ERRORS.map(([pattern, say]) => {
    const m = pattern.exec(text)
    return m ? say(m, error as Error & {args?: {name?: string}[]}) : undefined
  }).find(Boolean)
  if (!statement) return undefined
  return refuse.invalid(statement.param, `${statement.says}; see loc ${command ? `${command.replaceAll(':', ' ')} ` : ''}--help`)
}

type Said = {param: string; says: string}
const PARSE_ERRORS: [RegExp, (m: RegExpExecArray, error: Error & {args?: {name?: string}[]}) => Said][] = [
  [/^Missing \d+ required args?/, (_, e) => ({param: (e.args ?? []).map((a) => a.name).join(', ') || 'argument', says: 'required'})],
  [/^Nonexistent flags?: (.*)/, (m) => ({param: m[1], says: 'no such flag'})],
  [/^Unexpected arguments?: (.*)/, (m) => ({param: m[1], says: 'unexpected argument'})],
  [/^Expected --([\w-]+)=(.*) to be one of: (.*)/, (m) => ({param: `--${m[1]}`, says: `one of ${m[3]} (got ${m[2]})`})],
  [/^Expected (.*) to be one of: (.*)/, (m) => ({param: 'argument', says: `one of ${m[2]} (got ${m[1]})`})],
  [/^Parsing --([\w-]+)\s*\n\s*([\s\S]*)/, (m) => ({param: `--${m[1]}`, says: lowerFirst(oneLine(m[2]))})],
  [/^Missing required flag:?\s*([\w-]+)/, (m) => ({param: `--${m[1]}`, says: 'required'})],
  [/^The following errors? occurred:\s*\n\s*([\s\S]*)/, (m) => flagReasons(m[1])],
  [/^Flag --([\w-]+) expects (?:a value|one of these values: (.*))/, (m) => ({param: `--${m[1]}`, says: m[2] ? `needs a value, one of ${m[2]}` : 'needs a value'})],
]

/** FailedFlagValidationError's reasons, one per line: `Missing required flag env`, `--a=x cannot also be provided when using --b`. */
function flagReasons(text: string): Said {
  const reasons = text.split('\n').map((l) => l.trim()).filter(Boolean)
  const missing = reasons.map((r) => /^Missing required flag:?\s*([\w-]+)$/.exec(r)?.[1])
  if (missing.every(Boolean)) return {param: missing.map((f) => `--${f}`).join(', '), says: 'required'}
  return {param: /--([\w-]+)/.exec(reasons[0])?.[0] ?? 'flags', says: reasons.map(lowerFirst).join('; ')}
}

const lowerFirst = (s: string) => s.charAt(0).toLowerCase() + s.slice(1)

/**
 * oclif's `command keys:list:extra not found` (no command has that id): an argument too many for
 * the longest command the words name, a command missing from a topic, or no such command at all.
 */
function unknownCommand(error: unknown, config?: Config): Refusal | undefined {
  const m = error instanceof Errors.CLIError ? /^command (\S+) not found\.?$/i.exec(error.message) : null
  if (!m) return undefined
  const words = m[1].split(':')
  for (let n = words.length - 1; n > 0; n--) {
    const id = words.slice(0, n).join(':')
    const rest = words.slice(n).join(' ')
    if (config?.findCommand(id)) return refuse.invalid(rest, `unexpected argument; see loc ${words.slice(0, n).join(' ')} --help`)
    if (config?.findTopic(id)) return refuse.invalid('command', `loc ${words.join(' ')} is not a command; see loc ${words.slice(0, n).join(' ')} --help`)
  }
  return refuse.invalid('command', `${words[0]} is not a loc command; see loc --help`)
}
