import {existsSync} from 'node:fs'
import path from 'node:path'
import {Command, Flags, type Interfaces} from '@oclif/core'
import pino from 'pino'
import {type Config, loadConfig} from '../config/index.js'
import {Refusal, refuse} from '../errors.js'
import {createLogger} from '../log.js'
import {STORE_FILE, type Store} from '../store/db.js'
import {openSystem, type System} from '../system.js'
import {report} from './failure.js'

export type BaseFlags<T extends typeof Command> = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags'] & T['flags']>

/** Every `loc` command takes `--config FILE` and reaches config and store the same way. */
export abstract class BaseCommand<T extends typeof Command> extends Command {
  static baseFlags = {
    config: Flags.string({description: 'JSON config file applied over config/default.json (LOC_* variables still win)', helpValue: 'FILE'}),
    'data-dir': Flags.string({description: 'data directory (default: data/, or LOC_DATA_DIR)', helpValue: 'DIR'}),
  }

  /**
   * Set on commands that only read or change what a store already holds (`keys list`, `status`):
   * a data directory without a store is refused rather than given a new empty one (a mistyped
   * --data-dir). The others create the store on first use and say so.
   */
  static needsStore = false

  /**
   * Where the system's JSON log lines go: stderr (synchronously, so none is lost when a failing
   * command exits), so that a command's stdout is its output alone; `loc serve`, whose output is
   * its log, sets this for stdout.
   */
  static logsOnStdout = false

  protected flags!: BaseFlags<T>
  private opened?: Promise<System>

  public async init(): Promise<void> {
    await super.init()
    const {flags} = await this.parse({flags: this.ctor.flags, baseFlags: (super.ctor as typeof BaseCommand).baseFlags, args: this.ctor.args, strict: this.ctor.strict})
    this.flags = flags as BaseFlags<T>
  }

  protected loadConfig(overrides: Record<string, unknown> = {}): Config {
    const flags = this.flags as Record<string, unknown>
    try {
      return loadConfig({file: flags.config as string | undefined, overrides: {dataDir: flags['data-dir'], ...overrides}})
    } catch (error) {
      throw new Refusal('invalid_parameter', (error as Error).message, 'config')
    }
  }

  /** The system built by the composition root (src/system.ts), once per command; closed when the command ends. */
  protected system(config: Config = this.loadConfig()): Promise<System> {
    this.opened ??= this.open(config)
    return this.opened
  }

  private async open(config: Config): Promise<System> {
    if ((this.ctor as unknown as typeof BaseCommand).needsStore) this.requireStore(config)
    const fresh = !existsSync(path.join(config.dataDir, STORE_FILE))
    const onStdout = (this.ctor as unknown as typeof BaseCommand).logsOnStdout
    const system = await openSystem(config, onStdout ? {} : {log: createLogger(config.logLevel, pino.destination({dest: 2, sync: true}))})
    if (fresh) this.logToStderr(`created a new store: ${system.store.file}`)
    return system
  }

  /** Refuses a data directory that holds no store, creating nothing. */
  protected requireStore(config: Config): void {
    if (existsSync(path.join(config.dataDir, STORE_FILE))) return
    throw refuse.invalid('data-dir', `no store at ${config.dataDir}; run \`loc init\`, or give the data directory of an existing store (--data-dir, LOC_DATA_DIR)`)
  }

  protected async openStore(config?: Config): Promise<Store> {
    return (await this.system(config)).store
  }

  /** Every failure, a parse error of oclif's included, as one line on stderr and a stable exit code (src/cli/failure.ts). */
  protected async catch(error: Error): Promise<unknown> {
    throw report(error, this.config, this.id)
  }

  protected async finally(error: Error | undefined): Promise<unknown> {
    await this.opened?.then((system) => system.close(), () => undefined)
    return super.finally(error)
  }
}
