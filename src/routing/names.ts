import type {MapBlob} from '../map/blob.js'

export interface RoadInfo {name: string | null; ref: string | null; highway: string | null; maxspeed: number | null}

/** Street names, refs, raw highway values and speed limits per edge, read from `route-edges.bin` (no SQL per edge). */
export class EdgeNames {
  private readonly name: Uint32Array
  private readonly ref: Uint32Array
  private readonly highway: Uint32Array
  private readonly maxspeed: Uint16Array
  private readonly off: Uint32Array
  private readonly bytes: Uint8Array
  /** decoded strings, filled on first use */
  private readonly strings: (string | undefined)[]
  private readonly decoder = new TextDecoder()

  /** Null for blobs written before the name sections existed. */
  static from(b: MapBlob): EdgeNames | null {
    return b.names().includes('strOff') ? new EdgeNames(b) : null
  }

  private constructor(b: MapBlob) {
    this.name = b.array('edgeName', Uint32Array)
    this.ref = b.array('edgeRef', Uint32Array)
    this.highway = b.array('edgeHighway', Uint32Array)
    this.maxspeed = b.array('edgeMaxspeed', Uint16Array)
    this.off = b.array('strOff', Uint32Array)
    this.bytes = b.section('strBytes')
    this.strings = new Array(this.off.length - 1)
  }

  private string(i: number): string | null {
    if (i === 0) return null
    return (this.strings[i] ??= this.decoder.decode(this.bytes.subarray(this.off[i], this.off[i + 1])))
  }

  get(edge: number): RoadInfo {
    return {name: this.string(this.name[edge]), ref: this.string(this.ref[edge]), highway: this.string(this.highway[edge]), maxspeed: this.maxspeed[edge] || null}
  }
}
