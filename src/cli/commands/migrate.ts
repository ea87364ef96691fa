import {Refusal} from '../../errors.js'
import {BaseCommand} from '../base.js'
import {migrate, openStore} from '../../store/db.js'

export default class Migrate extends BaseCommand<typeof Migrate> {
  static description = 'Apply pending database migrations (loc serve also does this on start).'
  static examples = ['<%= config.bin %> migrate', '<%= config.bin %> migrate --data-dir /var/lib/loc']

  async run(): Promise<void> {
    const config = this.loadConfig()
    const store = await openStore(config.dataDir, {migrate: false})
    try {
      const {error, results = []} = await migrate(store.sqlite)
      for (const r of results) this.log(`${r.status === 'Success' ? 'applied' : r.status.toLowerCase()}: ${r.migrationName}`)
      if (error) throw new Refusal('internal', `migration failed: ${(error as Error).message}`)
      this.log(results.length ? `${results.length} migration(s) applied to ${store.file}` : `${store.file} is up to date`)
    } finally {
      await store.close()
    }
  }
}
