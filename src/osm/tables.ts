/**
 * Node coordinates and the node lists of the ways the build still needs, in flat typed arrays rather
 * than objects: the import's memory is dominated by these. Nodes live in fixed-size chunks (16 bytes
 * per node, no copy-on-grow peaks); lookup by OSM id is a binary search, after one sort if the file
 * was not sorted.
 */

const SHIFT = 20
const CHUNK = 1 << SHIFT
const MASK = CHUNK - 1

export class NodeTable {
  private idChunks: Float64Array[] = []
  private lonChunks: Int32Array[] = []
  private latChunks: Int32Array[] = []
  /** Id of the first node of each chunk, for the first step of a lookup. */
  private firstIds = new Float64Array(0)
  size = 0
  private sorted = true
  private last = -Infinity

  add(id: number, lon: number, lat: number): void {
    const k = this.size & MASK
    if (k === 0) {
      this.idChunks.push(new Float64Array(CHUNK))
      this.lonChunks.push(new Int32Array(CHUNK))
      this.latChunks.push(new Int32Array(CHUNK))
    }
    const c = this.idChunks.length - 1
    if (id <= this.last) this.sorted = false
    this.last = id
    this.idChunks[c][k] = id
    this.lonChunks[c][k] = lon
    this.latChunks[c][k] = lat
    this.size++
  }

  finish(): void {
    if (!this.sorted) this.sort()
    this.firstIds = Float64Array.from(this.idChunks, (c) => c[0])
  }

  /** Unsorted input is rare (hand-made or old tool output) and small, so one flat copy is fine. */
  private sort(): void {
    const n = this.size
    const ids = new Float64Array(n), lon = new Int32Array(n), lat = new Int32Array(n)
    for (let i = 0; i < n; i++) {
      ids[i] = this.id(i)
      lon[i] = this.lon(i)
      lat[i] = this.lat(i)
    }
    const order = new Uint32Array(n)
    for (let i = 0; i < n; i++) order[i] = i
    order.sort((a, b) => ids[a] - ids[b])
    this.idChunks = []
    this.lonChunks = []
    this.latChunks = []
    this.size = 0
    for (const i of order) this.add(ids[i], lon[i], lat[i])
  }

  id(i: number): number {
    return this.idChunks[i >>> SHIFT][i & MASK]
  }

  /** 1e-7 degrees */
  lon(i: number): number {
    return this.lonChunks[i >>> SHIFT][i & MASK]
  }

  lat(i: number): number {
    return this.latChunks[i >>> SHIFT][i & MASK]
  }

  /** Index of `id`, or -1 when the file lacks it (regional cuts drop nodes). */
  indexOf(id: number): number {
    let lo = 0, hi = this.firstIds.length - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >>> 1
      if (this.firstIds[mid] <= id) lo = mid
      else hi = mid - 1
    }
    if (hi < 0) return -1
    const k = search(this.idChunks[lo], id, lo === this.idChunks.length - 1 ? ((this.size - 1) & MASK) + 1 : CHUNK)
    return k < 0 ? -1 : lo * CHUNK + k
  }
}

/** A typed array that grows by half as values are pushed; `data.subarray(0, length)` holds them. */
export class Growable<T extends Float64Array | Int32Array | Uint32Array | Uint8Array> {
  length = 0
  constructor(public data: T) {}
  reserve(n: number): void {
    if (this.length + n <= this.data.length) return
    const next = new (this.data.constructor as new (n: number) => T)(Math.max(this.length + n, Math.ceil(this.data.length * 1.5)))
    next.set(this.data)
    this.data = next
  }
  push(v: number): void {
    this.reserve(1)
    this.data[this.length++] = v
  }
}

/** The ways the build needs after reading them (roads, streets, relation members), as node indexes. */
export class WayTable {
  private ids = new Growable(new Float64Array(1 << 12))
  private start = new Growable(new Int32Array(1 << 12))
  /** Node indexes, -1 where the file lacks the node. */
  private idx = new Growable(new Int32Array(1 << 16))
  private order: Uint32Array | null = null
  private sortedIds: Float64Array | null = null
  private last = -Infinity
  private unsorted = false

  get size(): number {
    return this.ids.length
  }

  /** Stores a way given its node indexes; returns the way's index in this table. */
  add(id: number, nodeIdx: Int32Array): number {
    if (id <= this.last) this.unsorted = true
    this.last = id
    this.ids.push(id)
    this.start.push(this.idx.length)
    this.idx.reserve(nodeIdx.length)
    this.idx.data.set(nodeIdx, this.idx.length)
    this.idx.length += nodeIdx.length
    return this.ids.length - 1
  }

  finish(): void {
    this.start.push(this.idx.length)
    const ids = this.ids.data.subarray(0, this.ids.length)
    if (this.unsorted) {
      this.order = new Uint32Array(ids.length)
      for (let i = 0; i < ids.length; i++) this.order[i] = i
      this.order.sort((a, b) => ids[a] - ids[b])
      this.sortedIds = Float64Array.from(this.order, (i) => ids[i])
    } else this.sortedIds = ids
  }

  /** Table index of an OSM way id, or -1. */
  indexOf(id: number): number {
    const k = search(this.sortedIds!, id, this.sortedIds!.length)
    return k < 0 || !this.order ? k : this.order[k]
  }

  wayId(w: number): number {
    return this.ids.data[w]
  }

  /** Node indexes of way `w` with nodes missing from the file dropped. */
  nodes(w: number): Int32Array {
    const s = this.start.data[w], e = this.start.data[w + 1], all = this.idx.data
    let missing = 0
    for (let i = s; i < e; i++) if (all[i] < 0) missing++
    if (!missing) return all.subarray(s, e)
    const out = new Int32Array(e - s - missing)
    for (let i = s, k = 0; i < e; i++) if (all[i] >= 0) out[k++] = all[i]
    return out
  }

  /** Node indexes of way `w` as listed, -1 where a node is missing from the file. */
  allNodes(w: number): Int32Array {
    return this.idx.data.subarray(this.start.data[w], this.start.data[w + 1])
  }

  /** Whether every node of way `w` is present. */
  complete(w: number): boolean {
    const s = this.start.data[w], e = this.start.data[w + 1], all = this.idx.data
    for (let i = s; i < e; i++) if (all[i] < 0) return false
    return true
  }
}

function search(ids: Float64Array, id: number, n: number): number {
  let lo = 0, hi = n - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = ids[mid]
    if (v < id) lo = mid + 1
    else if (v > id) hi = mid - 1
    else return mid
  }
  return -1
}
