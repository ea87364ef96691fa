import {mkdtempSync, readFileSync, rmSync} from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import {Args, Flags} from '@oclif/core'
import {refuse} from '../../errors.js'
import {eventJson} from '../../events/json.js'
import {openSystem} from '../../system.js'
import {etaFromRouting} from '../../tracking/trips.js'
import {trackSchema} from '../../tracking/input.js'
import {parseTrace, type TracePoint, traceTimes} from '../../tracking/trace.js'
import {trackedUser, trackIn} from '../../tracking/track.js'
import {write} from '../../store/write.js'
import {BaseCommand} from '../base.js'
import {count} from '../progress.js'

export default class Simulate extends BaseCommand<typeof Simulate> {
  static description = 'Replay a recorded trace (CSV or GPX) through the tracking engine as one user and print each event with its time: test geofences, trips and settings before going live. --dry-run works on a scratch copy of the store.'

  static examples = [
    '<%= config.bin %> simulate drive.csv --user courier-7 --dry-run',
    '<%= config.bin %> simulate walk.gpx --user u1 --env live',
  ]

  static args = {trace: Args.string({description: 'CSV (latitude, longitude[, accuracy, time, stopped, foreground]) or GPX file', required: true})}

  static flags = {
    user: Flags.string({description: 'the userId the trace belongs to (its deviceId too, unless --device)', required: true}),
    device: Flags.string({description: 'deviceId (default: the --user value)'}),
    env: Flags.string({description: 'environment whose geofences and settings apply', options: ['test', 'live'], default: 'test'}),
    'dry-run': Flags.boolean({description: 'work on a scratch copy of the store: nothing is kept, no webhooks are owed'}),
  }

  async run(): Promise<void> {
    const {flags} = this
    const {args} = await this.parse(Simulate)
    // the user and device ids as the API takes them in a track
    for (const [flag, value] of [['--user', flags.user], ['--device', flags.device]] as const) {
      const id = trackSchema.shape.deviceId.safeParse(value ?? flags.user)
      if (!id.success) throw refuse.invalid(flag, id.error.issues[0].message)
    }
    let text: string
    try {
      text = readFileSync(args.trace, 'utf8')
    } catch {
      throw refuse.invalid('trace', `a readable CSV or GPX file (${args.trace} cannot be read)`)
    }
    const points = parseTrace(text, /\.gpx$/i.test(args.trace) || /^\s*<\?xml|<gpx/i.test(text.slice(0, 200)) ? 'gpx' : 'csv')
    if (points.length === 0) throw refuse.invalid('trace', 'at least one point')
    const times = traceTimes(points, new Date())
    let config = this.loadConfig()
    let scratch: string | undefined
    if (flags['dry-run']) {
      // a scratch copy of a store that is not there would be an empty store: nothing to test
      this.requireStore(config)
      const original = await this.openStore(config)
      scratch = mkdtempSync(path.join(os.tmpdir(), 'loc-simulate-'))
      await original.sqlite.backup(path.join(scratch, path.basename(original.file)))
      config = {...config, dataDir: scratch}
    }
    const system = scratch ? await openSystem(config) : await this.system(config)
    try {
      const live = flags.env === 'live'
      const counts = new Map<string, number>()
      const inputOf = (p: TracePoint) => ({deviceId: flags.device ?? flags.user, userId: flags.user, latitude: p.lat, longitude: p.lng, accuracy: p.accuracy,
        stopped: p.stopped, foreground: p.foreground})
      const last = write(system.store, (tx) => trackedUser(tx, live, inputOf(points[0])))?.updated_at
      if (last && last >= times[0].toISOString()) {
        throw refuse.conflict('user', `${flags.user} was last updated at ${last}, not before the trace's first point (${times[0].toISOString()}): replayed, it would move back in time (simulate as a new --user)`)
      }
      const deps = {store: system.store, map: system.map, routing: etaFromRouting(system.routing)}
      points.forEach((p, i) => {
        const result = write(system.store, (tx) => trackIn(tx, deps, live, inputOf(p), '127.0.0.1', times[i]))
        for (const event of result.events.map(eventJson)) {
          counts.set(event.type as string, (counts.get(event.type as string) ?? 0) + 1)
          this.log(`${event.createdAt}  ${String(event.type).padEnd(40)} ${describe(event)}`)
        }
      })
      const summary = [...counts].map(([type, n]) => `${count(n)} ${type}`).join(', ')
      this.log(`${count(points.length)} points, ${count([...counts.values()].reduce((a, b) => a + b, 0))} events${summary ? `: ${summary}` : ''}${scratch ? ' (dry run: nothing kept)' : ''}`)
    } finally {
      if (scratch) {
        await system.close()
        rmSync(scratch, {recursive: true, force: true})
      }
    }
  }
}

function describe(event: Record<string, any>): string {
  if (event.geofence) return `${event.geofence.tag ?? ''}/${event.geofence.externalId ?? event.geofence._id} ${event.geofence.description} confidence=${event.confidence}${event.duration === undefined ? '' : ` duration=${event.duration} min`}`
  if (event.trip) return `trip ${event.trip.externalId} ${event.trip.status}${event.trip.eta ? ` eta=${event.trip.eta.duration} min` : ''}`
  if (event.region) return `${event.region.type} ${event.region.code} ${event.region.name}`
  if (event.beacon) return `beacon ${event.beacon.description}`
  return ''
}
