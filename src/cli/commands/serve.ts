import {Flags} from '@oclif/core'
import {startServer} from '../../api/server.js'
import {startJobs} from '../../jobs/index.js'
import {createLogger} from '../../log.js'
import {openMapData} from '../../map/index.js'
import {ensureDemoKeys, ensureDemoMap} from '../../project/demo.js'
import {BaseCommand} from '../base.js'

export default class Serve extends BaseCommand<typeof Serve> {
  static description = 'Run the REST API (/v1) and the static map renderer (/maps/static). Stops gracefully on SIGINT/SIGTERM, finishing in-flight requests.'

  static examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --host 0.0.0.0 --port 8080',
    'LOC_DATA_DIR=/var/lib/loc <%= config.bin %> serve',
    '<%= config.bin %> serve --demo   # first start: demo keys and the bundled Monaco map',
  ]

  static flags = {
    host: Flags.string({description: 'address to listen on (default 127.0.0.1, or LOC_HOST)'}),
    port: Flags.integer({description: 'port to listen on (default 8080, or LOC_PORT; 0 picks a free one)', min: 0, max: 65535}),
    demo: Flags.boolean({description: 'demo mode: on first start create demo keys and import the bundled Monaco extract; print the keys'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const config = this.loadConfig({host: flags.host, port: flags.port})
    const store = await this.openStore(config)
    const log = createLogger(config.logLevel)
    if (flags.demo) {
      const keys = await ensureDemoKeys(store, config.dataDir)
      this.log('Demo keys (kept in data/demo-keys.json):')
      for (const [name, key] of Object.entries(keys)) this.log(`  ${name.padEnd(18)} ${key}`)
      const imported = await ensureDemoMap(config.dataDir)
      if (imported) this.log(`Imported the bundled extract ${imported.source} as region "${imported.region}" in ${imported.seconds.toFixed(1)} s`)
    }
    const map = openMapData(config.dataDir)
    const server = await startServer({config, store, log, map})
    const jobs = startJobs(store, log)
    this.log(`loc listening on ${server.url} (store ${store.file})`)
    await new Promise<void>((resolve) => {
      const stop = (signal: string) => {
        log.info({signal}, 'shutting down: finishing in-flight requests')
        Promise.all([server.close(), jobs.stop()]).then(() => resolve(), () => resolve()).finally(() => map.close())
      }
      process.once('SIGINT', stop)
      process.once('SIGTERM', stop)
    })
    this.log('loc stopped')
  }
}
