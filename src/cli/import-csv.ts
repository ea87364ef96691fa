import {Args, Flags} from '@oclif/core'
import {Refusal} from '../errors.js'
import type {ImportOptions, ImportSummary} from '../sync/import.js'
import type {System} from '../system.js'
import {BaseCommand} from './base.js'
import {requireFile} from './file-arg.js'
import {count, startProgress} from './progress.js'

/** `loc geofences import` and `loc beacons import`: the same flags, progress bar and summary. */
export abstract class ImportCsvCommand extends BaseCommand<typeof ImportCsvCommand> {
  static args = {file: Args.string({description: 'CSV file (UTF-8, header row first)', required: true})}
  static flags = {
    env: Flags.string({description: 'environment to import into', options: ['test', 'live'], required: true}),
    'dry-run': Flags.boolean({description: 'validate and count what would change; write nothing'}),
    partial: Flags.boolean({description: 'import the valid rows and list the others (default: any bad row imports nothing)'}),
  }

  protected abstract readonly noun: string
  protected abstract importer(system: System, file: string, options: ImportOptions): Promise<ImportSummary>

  async run(): Promise<void> {
    const {args} = await this.parse(this.ctor)
    const file = args.file as string
    const size = requireFile(file, 'a readable CSV file')
    const system = await this.system()
    const progress = startProgress(`{percentage}% | {rows} ${this.noun} rows`, size, {rows: 0})
    let summary: ImportSummary
    try {
      summary = await this.importer(system, file, {
        live: this.flags.env === 'live',
        partial: this.flags.partial,
        dryRun: this.flags['dry-run'],
        progress: (rows, bytes) => progress.update(bytes, {rows}),
      })
    } catch (error) {
      progress.stop()
      throw error
    }
    progress.finish({rows: summary.rows})
    // the rows at fault are a report for the person at the terminal: stderr, as a refusal is
    for (const f of summary.failures) this.logToStderr(`row ${f.row}${f.column ? `, ${f.column}` : ''}: ${f.reason}`)
    if (summary.failed > summary.failures.length) this.logToStderr(`… and ${count(summary.failed - summary.failures.length)} more failed rows`)
    const line = summaryLine(this.noun, this.flags.env, summary, this.flags['dry-run'])
    if (summary.failed > 0 && !summary.written && !this.flags['dry-run'] && !this.flags.partial) throw new Refusal('invalid_parameter', line, 'file')
    this.log(line)
  }
}

export function summaryLine(noun: string, env: string, s: ImportSummary, dryRun: boolean): string {
  const counts = `${count(s.created)} created, ${count(s.updated)} updated, ${count(s.unchanged)} unchanged${s.deleted ? `, ${count(s.deleted)} deleted` : ''}, ${count(s.failed)} failed`
  if (dryRun) return `dry run (${env}), nothing written: ${counts} of ${count(s.rows)} rows`
  if (!s.written) return `nothing imported (${env}): ${count(s.failed)} of ${count(s.rows)} rows failed; fix them or use --partial to import the valid rows`
  return `${noun} imported (${env}): ${counts} of ${count(s.rows)} rows`
}
