import path from 'node:path'
import {readManifest} from '../../map/index.js'
import {listKeys} from '../../project/keys.js'
import {monthOf} from '../../project/usage.js'
import {storeSizeBytes} from '../../store/db.js'
import {BaseCommand} from '../base.js'
import {count} from '../progress.js'

const RESOURCES = ['users', 'geofences', 'beacons', 'trips', 'events'] as const

export default class Status extends BaseCommand<typeof Status> {
  static description = 'Show the database path and size, resource counts and this month\'s API requests per environment, imported extracts and key prefixes.'
  static examples = ['<%= config.bin %> status']
  static needsStore = true

  async run(): Promise<void> {
    const config = this.loadConfig()
    const store = await this.openStore(config)
    this.log(`database  ${store.file} (${(storeSizeBytes(store) / 1024 / 1024).toFixed(2)} MB)`)
    // one layout for the header, the resources and the requests: label, then test and live right-aligned
    const row = (label: string, test: string, live: string) => `${label.padEnd(17)}${test.padStart(10)}${live.padStart(10)}`
    this.log(row('resources', 'test', 'live'))
    for (const table of RESOURCES) {
      const rows = await store.db.selectFrom(table).select(['live', (eb) => eb.fn.countAll<number>().as('n')]).groupBy('live').execute()
      const n = (live: number) => count(rows.find((r) => r.live === live)?.n ?? 0)
      this.log(row(table, n(0), n(1)))
    }
    const month = monthOf(Date.now())
    const usage = await store.db.selectFrom('usage').select(['live', 'requests']).where('month', '=', month).execute()
    const used = (live: number) => count(usage.find((u) => u.live === live)?.requests ?? 0)
    this.log(row(`requests ${month}`, used(0), used(1)))
    const regions = Object.entries(readManifest(config.dataDir).regions)
    this.log(regions.length ? 'extracts' : 'extracts  none imported (loc import osm FILE.osm.pbf)')
    for (const [name, r] of regions) this.log(`  ${name.padEnd(16)} ${path.basename(r.source)}  imported ${r.importedAt}  ${count(r.counts.places ?? 0)} places  ${count(r.counts.addresses ?? 0)} addresses  ${count(r.counts.edges ?? 0)} road edges`)
    const keys = await listKeys(store)
    this.log(keys.length ? 'keys' : 'keys      none')
    for (const k of keys) this.log(`  ${k.prefix}  ${k.type} ${k.env}${k.revokedAt ? ' (revoked)' : ''}`)
  }
}
