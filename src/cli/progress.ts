import cliProgress from 'cli-progress'

export interface Progress {
  update(done: number, extra?: Record<string, string | number>): void
  stop(): void
}

/**
 * A progress bar on a terminal (stderr), silent lines elsewhere: long work (imports, builds, syncs)
 * shows progress to a person without flooding CI logs.
 */
export function startProgress(label: string, total: number, format = '{bar} {percentage}% | {value}/{total} {label}'): Progress {
  if (!process.stderr.isTTY) {
    return {update() {}, stop() {}}
  }
  const bar = new cliProgress.SingleBar({format, stream: process.stderr, hideCursor: true, clearOnComplete: false}, cliProgress.Presets.shades_classic)
  bar.start(total, 0, {label})
  return {
    update(done, extra) {
      bar.update(done, {label, ...extra})
    },
    stop() {
      bar.stop()
    },
  }
}
