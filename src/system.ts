import path from 'node:path'
import {type RunningServer, startServer} from './api/server.js'
import type {Config} from './config/index.js'
import {type Jobs, startJobs} from './jobs/index.js'
import {createLogger, type Logger} from './log.js'
import type {IsochroneSource, MapGeometry} from './geofences/geometry.js'
import {geocodePoint} from './geocoding/search.js'
import {IpLocator} from './geocoding/ip.js'
import {type MapData, openMapData} from './map/index.js'
import {placeGeometry} from './places/index.js'
import {createStaticMaps, type StaticMaps} from './maps/index.js'
import {markersDir} from './maps/markers.js'
import {type Routing, openRouting} from './routing/system.js'
import {openStore, type Store} from './store/db.js'
import {type DemoSetup, setUpDemo} from './project/demo.js'
import {placeIndex} from './places/index.js'
import {syncsSettled} from './sync/run.js'
import {startSyncScheduler} from './sync/scheduler.js'
import {type DeliveryWorker, startDeliveries} from './webhooks/worker.js'
import {startCheckpointer} from './store/checkpointer.js'
import {shippedStateAt} from './regions/states.js'

/** The running system as every part of loc reaches it: API handlers, jobs, workers, CLI commands. */
export interface System {
  config: Config
  store: Store
  log: Logger
  /** The imported map regions (read-only; follows new imports without a restart). */
  map: MapData
  /** Isochrone rings for isochrone geofences, from the routing engine (null where no road graph covers the point). */
  isochrones: IsochroneSource
  /** Geofence geometry given by `placeId` or `address` (places' footprints and centroids, geocoded points), from the imported map. */
  mapGeometry: MapGeometry
  /** The static map renderer (GET /maps/static) over `map`. */
  staticMaps: StaticMaps
  /** The routing engine over the imported road graphs (ETAs for trips, isochrones). */
  routing: Routing
  /** Offline IP geolocation (GeoIP, loaded on first use): IP geocode and the 451 for blocked countries. */
  ip: IpLocator
  /** Closes the map files and the store; stop whatever `serve` started first. */
  close(): Promise<void>
}

export interface SystemOptions {
  /** Default: a logger at `config.logLevel`. */
  log?: Logger
}

/**
 * The composition root: the one function that builds loc from its config. `loc serve`, every CLI
 * command, the tests and the benches build it here, so there is one wiring to read and to change.
 */
export async function openSystem(config: Config, options: SystemOptions = {}): Promise<System> {
  const store = await openStore(config.dataDir)
  const map = openMapData(config.dataDir)
  const routing = openRouting(map)
  return {
    config,
    store,
    log: options.log ?? createLogger(config.logLevel),
    map,
    isochrones: routing.isochrones,
    mapGeometry: {
      loaded: () => map.regions().length > 0,
      place: (id) => placeGeometry(map, id),
      address: (text, near) => geocodePoint(map, text, near),
    },
    routing,
    staticMaps: createStaticMaps(map, {stylesDir: path.resolve('config', 'styles'), markersDir: markersDir(config.dataDir)}),
    ip: new IpLocator(),
    async close() {
      map.close()
      await store.close()
    },
  }
}

/**
 * What `loc serve` does once before it serves, in one process even with `--workers` (the primary,
 * before it forks): opens the store, which runs pending migrations, and with `demo` runs the demo's
 * setup (keys, bundled map). Workers forked after it find nothing left to create; run in each of
 * them, the migrations and the import would race (a duplicate table, "another import is running").
 */
export async function prepareServe(config: Config, options: {demo?: boolean} = {}): Promise<DemoSetup | undefined> {
  const store = await openStore(config.dataDir)
  try {
    return options.demo ? await setUpDemo(store, config.dataDir) : undefined
  } finally {
    await store.close()
  }
}

export interface Serving {
  server: RunningServer
  jobs: Jobs
  /** The webhook delivery worker (src/webhooks/worker.ts). */
  deliveries: DeliveryWorker
  /** Stops taking requests (in-flight ones finish), stops the jobs; the system stays open. */
  stop(): Promise<void>
}

/**
 * Starts what `loc serve` runs on a system: the HTTP server, the webhook delivery worker, the WAL
 * checkpointer thread and, unless `jobs: false`, the timed jobs and the scheduled geofence syncs. `stop` lets requests and
 * deliveries in flight finish.
 */
export async function serve(system: System, options: {jobs?: boolean} = {}): Promise<Serving> {
  // the shipped US state shapes take ~70 ms to decode: before the first request, not during one
  shippedStateAt(0, 0)
  // each region's place index: a region whose places.bin predates reaches builds it from its
  // database (every footprint parsed), here rather than inside the first track's write
  for (const region of system.map.regions()) placeIndex(system.map, region.name)
  await system.staticMaps.warm().catch((err) => system.log.warn({err}, 'static maps: renderer or drawing data failed to load'))
  const server = await startServer(system)
  const jobs = startJobs(system, options.jobs === false ? [] : undefined)
  const syncs = options.jobs === false ? undefined : startSyncScheduler(system)
  const deliveries = startDeliveries(system)
  const checkpoints = startCheckpointer(system.store)
  return {
    server,
    jobs,
    deliveries,
    async stop() {
      // without the scheduler (a worker other than the first) a sync the API started may still run
      await Promise.all([server.close(), jobs.stop(), syncs ? syncs.stop() : syncsSettled(system.store), deliveries.stop()])
      await checkpoints.stop()
    },
  }
}
