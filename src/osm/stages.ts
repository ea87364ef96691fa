import {mapsStage} from '../maps/stage.js'
import {geocodingStage} from '../geocoding/stage.js'
import {placesStage} from '../places/stage.js'
import {routingStage} from '../routing/stage.js'
import type {MapStage} from './stage.js'

/** The derived stages every import runs, in order; each is owned by the domain that reads it. */
export const STAGES: readonly MapStage[] = [placesStage, geocodingStage, routingStage, mapsStage]
