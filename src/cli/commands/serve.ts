import cluster from 'node:cluster'
import path from 'node:path'
import {Flags} from '@oclif/core'
import {DEMO_KEYS_FILE, type DemoSetup} from '../../project/demo.js'
import {prepareServe, serve} from '../../system.js'
import {BaseCommand} from '../base.js'

export default class Serve extends BaseCommand<typeof Serve> {
  static description = 'Run the REST API (/v1) and the static map renderer (/maps/static). Stops gracefully on SIGINT/SIGTERM, finishing in-flight requests.'

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
    let stopped = false
    const stopSignal = new Promise<string>((resolve) => {
      const stop = (signal: string) => {
        stopped = true
        resolve(signal)
      }
      process.once('SIGINT', () => stop('SIGINT'))
      process.once('SIGTERM', () => stop('SIGTERM'))
      if (cluster.isWorker) process.on('message', (m: {stop?: boolean}) => m?.stop && stop('stop'))
    })
    const config = this.loadConfig({host: flags.host, port: flags.port})
    // once, before any worker is forked: workers find the store migrated and the demo set up
    if (cluster.isPrimary) {
      const demo = await prepareServe(config, {demo: flags.demo})
      if (demo) this.printDemo(demo, config.dataDir)
      if (flags.workers > 1) {
        // stopped while preparing: fork none (a worker still loading would miss the stop message)
        if (!stopped) await this.supervise(flags.workers, stopSignal)
        this.log('loc stopped')
        return
      }
    }
    const system = await this.system(config)
    const {store, log} = system
    // with workers, the first runs the timed jobs and the primary prints where they listen
    const worker = cluster.isWorker ? cluster.worker! : undefined
    const serving = await serve(system, {jobs: !worker || worker.id === 1})
    if (worker) process.send!({listening: serving.server.url, store: store.file})
    else this.log(`loc listening on ${serving.server.url} (store ${store.file})`)
    const signal = await stopSignal
    log.info({signal}, 'shutting down: finishing in-flight requests')
    await serving.stop().catch(() => undefined)
    if (!worker) this.log('loc stopped')
    else process.disconnect()
  }

  private printDemo({keys, imported}: DemoSetup, dataDir: string): void {
    const file = path.join(dataDir, DEMO_KEYS_FILE)
    const relative = path.relative(process.cwd(), file)
    this.log(`Demo keys (kept in ${relative.startsWith('..') ? file : relative}):`)
    for (const [name, key] of Object.entries(keys)) this.log(`  ${name.padEnd(18)} ${key}`)
    if (imported) this.log(`Imported the bundled extract ${imported.source} as region "${imported.region}" in ${imported.seconds.toFixed(1)} s`)
  }

  /**
   * The primary of `--workers N`: forks N copies of this command, which share the listening port
   * (the primary hands out connections) and the store (SQLite's write lock orders their
   * transactions, so per-device ordering and group commit hold across them); replaces a worker
   * that dies; on SIGINT/SIGTERM stops them all, each finishing its in-flight requests.
   */
  private async supervise(count: number, stopSignal: Promise<string>): Promise<void> {
    let stopping = false
    let announced = false
    // workers that died before they listened, in a row: the next waits longer, and when none ever
    // listened, `count` of them end the start (a taken port would otherwise fork workers forever)
    let failed = 0
    const listened = new Set<number>()
    let gaveUp: (code: number) => void
    const givenUp = new Promise<number>((resolve) => (gaveUp = resolve))
    const fork = () => {
      if (stopping) return
      const worker = cluster.fork()
      worker.on('message', (message: {listening?: string; store?: string}) => {
        if (!message.listening) return
        listened.add(worker.id)
        failed = 0
        if (announced) return
        announced = true
        this.log(`loc listening on ${message.listening} (${count} workers, store ${message.store})`)
      })
    }
    cluster.on('exit', (worker, code, signal) => {
      if (stopping) return
      const early = !listened.delete(worker.id)
      failed = early ? failed + 1 : 0
      if (early && !announced && failed >= count) {
        this.logToStderr(`worker ${worker.process.pid} exited (${signal ?? code}); ${failed} workers failed to start, stopping`)
        return gaveUp(code || 1)
      }
      const delayMs = early ? Math.min(30_000, 1000 * 2 ** (failed - 1)) : 0
      this.logToStderr(`worker ${worker.process.pid} exited (${signal ?? code}); starting another${delayMs ? ` in ${delayMs / 1000} s` : ''}`)
      setTimeout(fork, delayMs)
    })
    for (let i = 0; i < count; i++) fork()
    const failure = await Promise.race([stopSignal.then(() => 0), givenUp])
    stopping = true
    const workers = Object.values(cluster.workers ?? {}).filter((w) => w !== undefined)
    await Promise.all(workers.map((w) => new Promise((resolve) => {
      w.once('exit', resolve)
      w.send({stop: true})
    })))
    if (failure) this.exit(failure)
  }
}
