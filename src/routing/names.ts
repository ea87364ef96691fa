import {type MapBlob, StringTable} from '../map/blob.js'

export interface RoadInfo {name: string | null; ref: string | null; highway: string | null; maxspeed: number | null}

/** Street names, refs, raw highway values and speed limits per edge, read from `route-edges.bin` (no SQL per edge). */
export class EdgeNames {
  private readonly name: Uint32Array
  private readonly ref: Uint32Array
  private readonly highway: Uint32Array
  private readonly maxspeed: Uint16Array
  private readonly strings: StringTable

  /** Null for blobs written before the name sections existed. */
  static from(b: MapBlob): EdgeNames | null {
    return b.names().includes('strOff') ? new EdgeNames(b) : null
  }

  private constructor(b: MapBlob) {
    this.name = b.array('edgeName', Uint32Array)
    this.ref = b.array('edgeRef', Uint32Array)
    this.highway = b.array('edgeHighway', Uint32Array)
    this.maxspeed = b.array('edgeMaxspeed', Uint16Array)
    this.strings = new StringTable(b.section('strBytes'), b.array('strOff', Uint32Array))
  }

  // string 0 is the empty string: no name
  private string(i: number): string | null {
    return i === 0 ? null : this.strings.at(i)
  }

  get(edge: number): RoadInfo {
    return {name: this.string(this.name[edge]), ref: this.string(this.ref[edge]), highway: this.string(this.highway[edge]), maxspeed: this.maxspeed[edge] || null}
  }
}
