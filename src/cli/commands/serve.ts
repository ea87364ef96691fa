import cluster from 'node:cluster'
import path from 'node:path'
import {Flags} from '@oclif/core'
import {DEMO_KEYS_FILE, type DemoSetup} from '../../project/demo.js'
import {prepareServe, serve} from '../../system.js'
import {BaseCommand} from '../base.js'
import {announceListening, listenForStop, stopDeadlineMs, superviseWorkers} from '../workers.js'

export default class Serve extends BaseCommand<typeof Serve> {
  static description = 'Run the REST API (/v1) and the static map renderer (/maps/static). Stops gracefully on SIGINT/SIGTERM, finishing in-flight requests.'

  static logsOnStdout = true
  static examples = [
    '<%= config.bin %> serve',
    '<%= config.bin %> serve --host 0.0.0.0 --port 8080',
    'LOC_DATA_DIR=/var/lib/loc <%= config.bin %> serve',
    '<%= config.bin %> serve --demo   # first start: demo keys and the bundled Monaco map',
    '<%= config.bin %> serve --workers 2   # one process per core, one store',
  ]

  static flags = {
    host: Flags.string({description: 'address to listen on (default 127.0.0.1, or LOC_HOST)'}),
    port: Flags.integer({description: 'port to listen on (default 8080, or LOC_PORT; 0 picks a free one)', min: 0, max: 65535}),
    demo: Flags.boolean({description: 'demo mode: on first start create demo keys and import the bundled Monaco extract; print the keys'}),
    workers: Flags.integer({description: 'HTTP worker processes sharing the port and the store (node:cluster); rate limits count per worker (docs/api/tracking.md)', min: 1, max: 64, default: 1}),
  }

  async run(): Promise<void> {
    const {flags} = this
    // listened for from the start, so a stop that comes while the server is still starting is kept
    const stop = listenForStop()
    const config = this.loadConfig({host: flags.host, port: flags.port})
    // once, before any worker is forked: workers find the store migrated and the demo set up
    if (cluster.isPrimary) {
      const demo = await prepareServe(config, {demo: flags.demo})
      if (demo) this.printDemo(demo, config.dataDir)
      if (flags.workers > 1) {
        // stopped while preparing: fork none
        const code = stop.requested() ? 0 : await superviseWorkers(flags.workers, stop.asked, this, stopDeadlineMs(config))
        if (code) this.exit(code)
        this.log('loc stopped')
        return
      }
    }
    const system = await this.system(config)
    const {store, log} = system
    // with workers, the first runs the timed jobs and the primary prints where they listen
    const worker = cluster.isWorker ? cluster.worker! : undefined
    // stopped while opening the store: nothing to serve (the system closes as the command ends)
    if (!stop.requested()) {
      const serving = await serve(system, {jobs: !worker || worker.id === 1})
      // stopped while starting: not announced
      const started = !stop.requested()
      if (started && worker) announceListening(serving.server.url, store.file)
      if (started && !worker) this.log(`loc listening on ${serving.server.url} (store ${store.file})`)
      log.info({signal: await stop.asked}, 'shutting down: finishing in-flight requests')
      await serving.stop().catch(() => undefined)
    }
    if (!worker) this.log('loc stopped')
    // worker.disconnect, not process.disconnect: the process ends once its system is closed,
    // where a bare disconnect makes cluster exit it at once
    else worker.disconnect()
  }

  private printDemo({keys, imported}: DemoSetup, dataDir: string): void {
    const file = path.join(dataDir, DEMO_KEYS_FILE)
    const relative = path.relative(process.cwd(), file)
    this.log(`Demo keys (kept in ${relative.startsWith('..') ? file : relative}):`)
    for (const [name, key] of Object.entries(keys)) this.log(`  ${name.padEnd(18)} ${key}`)
    if (imported) this.log(`Imported the bundled extract ${imported.source} as region "${imported.region}" in ${imported.seconds.toFixed(1)} s`)
  }
}
