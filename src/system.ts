import {type RunningServer, startServer} from './api/server.js'
import type {Config} from './config/index.js'
import {type Jobs, startJobs} from './jobs/index.js'
import {createLogger, type Logger} from './log.js'
import {type IsochroneSource, noIsochrones} from './geofences/geometry.js'
import {IpLocator} from './geocoding/ip.js'
import {type MapData, openMapData} from './map/index.js'
import {openStore, type Store} from './store/db.js'

/** The running system as every part of loc reaches it: API handlers, jobs, workers, CLI commands. */
export interface System {
  config: Config
  store: Store
  log: Logger
  /** The imported map regions (read-only; follows new imports without a restart). */
  map: MapData
  /** Isochrone rings for isochrone geofences: none until a routing engine is wired in here. */
  isochrones: IsochroneSource
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
  return {
    config,
    store,
    log: options.log ?? createLogger(config.logLevel),
    map,
    isochrones: noIsochrones,
    ip: new IpLocator(),
    async close() {
      map.close()
      await store.close()
    },
  }
}

export interface Serving {
  server: RunningServer
  jobs: Jobs
  /** Stops taking requests (in-flight ones finish), stops the jobs; the system stays open. */
  stop(): Promise<void>
}

/** Starts what `loc serve` runs on a system: the HTTP server and, unless `jobs: false`, the timed jobs. */
export async function serve(system: System, options: {jobs?: boolean} = {}): Promise<Serving> {
  const server = await startServer(system)
  const jobs = startJobs(system, options.jobs === false ? [] : undefined)
  return {
    server,
    jobs,
    async stop() {
      await Promise.all([server.close(), jobs.stop()])
    },
  }
}
