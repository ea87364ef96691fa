import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {Flags} from '@oclif/core'
import {confirm, input, number} from '@inquirer/prompts'
import {loadConfig, PACKAGE_ROOT} from '../../config/index.js'
import {makeDataDir} from '../../data-dir.js'
import {refuse} from '../../errors.js'
import {createKey, listKeys} from '../../project/keys.js'
import {openStore} from '../../store/db.js'
import {BaseCommand} from '../base.js'

export default class Init extends BaseCommand<typeof Init> {
  static description = 'Set up loc: choose the data directory and port (saved to config/local.json, or the --config file), create the database and the four API keys (unless the store already has active keys).'
  static examples = ['<%= config.bin %> init', '<%= config.bin %> init --yes', '<%= config.bin %> init --yes --no-keys']

  static flags = {
    yes: Flags.boolean({char: 'y', description: 'do not ask: take the defaults (or the values given as flags)'}),
    port: Flags.integer({description: 'port for loc serve', min: 0, max: 65535}),
    keys: Flags.boolean({description: 'create the four keys (publishable/secret × test/live)', default: true, allowNo: true}),
  }

  async run(): Promise<void> {
    const target = path.resolve(this.flags.config ?? path.join(PACKAGE_ROOT, 'config', 'local.json'))
    const current = existsSync(target) ? this.loadConfig() : loadConfig({overrides: {dataDir: this.flags['data-dir']}})
    const relative = path.relative(PACKAGE_ROOT, current.dataDir) || '.'
    const ask = !this.flags.yes
    if (ask && !process.stdin.isTTY) throw refuse.invalid('--yes', 'required without a terminal (init asks its questions at one); with --yes it takes --data-dir and --port, or the defaults')
    const dataDir = ask ? await this.prompt(() => input({message: 'Data directory', default: this.flags['data-dir'] ?? relative}), 'nothing saved') : (this.flags['data-dir'] ?? relative)
    const port = ask
      ? (await this.prompt(() => number({message: 'Port', default: this.flags.port ?? current.port, min: 0, max: 65535, required: true}), 'nothing saved'))!
      : (this.flags.port ?? current.port)

    // a data directory that cannot be made is refused before the config names it
    const dir = path.resolve(PACKAGE_ROOT, dataDir)
    makeDataDir(dir)
    const saved = existsSync(target) ? JSON.parse(readFileSync(target, 'utf8')) : {}
    mkdirSync(path.dirname(target), {recursive: true})
    writeFileSync(target, JSON.stringify({...saved, dataDir, port}, null, 2) + '\n')
    this.log(`saved ${target}`)

    const store = await openStore(dir)
    try {
      this.log(`database ready: ${store.file}`)
      // run again on a store in use: its keys stay the only ones (more are one `loc keys create` away)
      const active = (await listKeys(store)).filter((k) => !k.revokedAt).length
      if (active && this.flags.keys) {
        this.log(`API keys: the store already has ${active} active key${active === 1 ? '' : 's'} (loc keys list); none created (loc keys create makes more)`)
      } else if (ask ? await this.prompt(() => confirm({message: 'Create the four API keys now?', default: this.flags.keys}), 'no keys created') : this.flags.keys) {
        this.log('API keys (shown once; only their hashes are stored):')
        for (const env of ['test', 'live'] as const) {
          for (const type of ['publishable', 'secret'] as const) {
            const {key} = await createKey(store, type, env)
            this.log(`  ${`${env} ${type}`.padEnd(18)} ${key}`)
          }
        }
      }
    } finally {
      await store.close()
    }
    this.log('next: loc serve')
  }

  /** A question; Ctrl-C or Ctrl-D at it ends init (exit 130) saying what was not done. */
  private async prompt<T>(question: () => Promise<T>, undone: string): Promise<T> {
    try {
      return await question()
    } catch (error) {
      if ((error as Error).name === 'ExitPromptError') this.error(`init cancelled; ${undone}`, {exit: 130})
      throw error
    }
  }
}
