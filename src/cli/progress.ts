import cliProgress from 'cli-progress'

/** A template's fields: numbers print with thousands separators, as every count loc prints. */
export type ProgressValues = Record<string, string | number>

export interface Progress {
  /** `done` of the total, with new values for some of the template's fields. */
  update(done: number, values?: ProgressValues): void
  /** The work is done: the bar at 100 % (or a last plain line), then stopped. */
  finish(values?: ProgressValues): void
  /** Stopped where it is (the work failed). */
  stop(): void
}

export interface ProgressOptions {
  /** default: process.stderr; a bar when it is a terminal, plain lines elsewhere */
  stream?: {write(text: string): unknown; isTTY?: boolean}
  now?: () => number
}

/** Off a terminal: work shorter than this prints no progress at all. */
const QUIET_MS = 1000
/** Off a terminal: a line at each further 10 %, and at least this often. */
const EVERY_MS = 10_000

/** `20000` → `20,000`. */
export const count = (n: number): string => n.toLocaleString('en-US')

/**
 * Progress of long work (imports, builds) on stderr. On a terminal, a bar redrawn in place. Elsewhere
 * (a log file, CI) plain lines: the first once the work has run a second, then one at each further
 * 10 % or every 10 s, and a last one when it is done; short work prints none. `template` names
 * fields as `{name}` and may use `{percentage}`; `values` gives every field its first value.
 */
export function startProgress(template: string, total: number, values: ProgressValues, options: ProgressOptions = {}): Progress {
  const stream = options.stream ?? process.stderr
  const current = {...values}
  const fields = (more: ProgressValues = {}) => Object.fromEntries(Object.entries(Object.assign(current, more)).map(([k, v]) => [k, typeof v === 'number' ? count(v) : v]))
  const whole = total > 0 ? total : 1
  if (stream.isTTY) {
    const bar = new cliProgress.SingleBar({format: `{bar} ${template}`, stream: stream as NodeJS.WriteStream, hideCursor: true, clearOnComplete: false}, cliProgress.Presets.shades_classic)
    bar.start(whole, 0, fields())
    return {
      update: (done, more) => bar.update(Math.min(done, whole), fields(more)),
      finish(more) {
        bar.update(whole, fields(more))
        bar.stop()
      },
      stop: () => bar.stop(),
    }
  }
  const now = options.now ?? Date.now
  const started = now()
  let last: {at: number; step: number} | undefined
  const line = (done: number) => {
    const percentage = Math.floor((Math.min(done, whole) / whole) * 100)
    const text = template.replace(/\{(\w+)\}/g, (_, name: string) => (name === 'percentage' ? String(percentage) : String(fields()[name] ?? '')))
    stream.write(`${text}\n`)
    last = {at: now(), step: Math.floor(percentage / 10)}
  }
  return {
    update(done, more) {
      fields(more)
      const at = now()
      if (at - started < QUIET_MS) return
      if (!last || Math.floor((Math.min(done, whole) / whole) * 10) > last.step || at - last.at >= EVERY_MS) line(done)
    },
    finish(more) {
      fields(more)
      if (last || now() - started >= QUIET_MS) line(whole)
    },
    stop() {},
  }
}
