import {existsSync, mkdirSync, readFileSync, writeFileSync} from 'node:fs'
import path from 'node:path'
import {Flags} from '@oclif/core'
import {confirm, input, number} from '@inquirer/prompts'
import {loadConfig, PACKAGE_ROOT} from '../../config/index.js'
import {refuse} from '../../errors.js'
import {createKey} from '../../project/keys.js'
import {openStore} from '../../store/db.js'
import {BaseCommand} from '../base.js'

export default class Init extends BaseCommand<typeof Init> {
  static description = 'Set up loc: choose the data directory and port (saved to config/local.json, or the --config file), create the database and the four API keys.'
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
    let dataDir: string
    let port: number
    let makeKeys: boolean
    try {
      dataDir = ask ? await input({message: 'Data directory', default: this.flags['data-dir'] ?? relative}) : (this.flags['data-dir'] ?? relative)
      port = ask
        ? (await number({message: 'Port', default: this.flags.port ?? current.port, min: 0, max: 65535, required: true}))!
        : (this.flags.port ?? current.port)
      makeKeys = ask ? await confirm({message: 'Create the four API keys now?', default: this.flags.keys}) : this.flags.keys
    } catch (error) {
      // Ctrl-C or Ctrl-D at a question: nothing is saved yet
      if ((error as Error).name === 'ExitPromptError') this.error('init cancelled; nothing saved', {exit: 130})
      throw error
    }

    const saved = existsSync(target) ? JSON.parse(readFileSync(target, 'utf8')) : {}
    mkdirSync(path.dirname(target), {recursive: true})
    writeFileSync(target, JSON.stringify({...saved, dataDir, port}, null, 2) + '\n')
    this.log(`saved ${target}`)

    const store = await openStore(path.resolve(PACKAGE_ROOT, dataDir))
    try {
      this.log(`database ready: ${store.file}`)
      if (makeKeys) {
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
}
