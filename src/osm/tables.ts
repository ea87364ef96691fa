/**
 * Every node coordinate and every way's node list, kept in flat typed arrays (16 bytes per node,
 * 8 per way ref) rather than objects: the import's memory is dominated by these. Lookup by OSM id
 * is a binary search over ids, sorted once after reading when the file was not sorted.
 */

class Growable<T extends Float64Array | Int32Array | Uint32Array> {
  length = 0
  constructor(public data: T) {}
  push(v: number): void {
    if (this.length === this.data.length) this.grow(this.length + 1)
    this.data[this.length++] = v
  }
  grow(min: number): void {
    const next = new (this.data.constructor as new (n: number) => T)(Math.max(min, Math.ceil(this.data.length * 1.5)))
    next.set(this.data)
    this.data = next
  }
  trim(): T {
    return this.data.subarray(0, this.length) as T
  }
}

export class NodeTable {
  private idsB = new Growable(new Float64Array(1 << 16))
  private lonB = new Growable(new Int32Array(1 << 16))
  private latB = new Growable(new Int32Array(1 << 16))
  ids!: Float64Array
  /** 1e-7 degrees */
  lon!: Int32Array
  lat!: Int32Array
  private sorted = true
  private last = -Infinity

  add(id: number, lon: number, lat: number): void {
    if (id <= this.last) this.sorted = false
    this.last = id
    this.idsB.push(id)
    this.lonB.push(lon)
    this.latB.push(lat)
  }

  get size(): number {
    return this.ids ? this.ids.length : this.idsB.length
  }

  finish(): void {
    this.ids = this.idsB.trim()
    this.lon = this.lonB.trim()
    this.lat = this.latB.trim()
    if (!this.sorted) {
      const order = sortOrder(this.ids)
      this.ids = permute(this.ids, order, new Float64Array(order.length))
      this.lon = permute(this.lon, order, new Int32Array(order.length))
      this.lat = permute(this.lat, order, new Int32Array(order.length))
    }
  }

  /** Index of `id`, or -1 when the file lacks it (regional cuts drop nodes). */
  indexOf(id: number): number {
    return search(this.ids, id)
  }
}

export class WayTable {
  private idsB = new Growable(new Float64Array(1 << 14))
  private startB = new Growable(new Uint32Array(1 << 14))
  private refsB = new Growable(new Float64Array(1 << 18))
  ids!: Float64Array
  private start!: Uint32Array
  /** Node ids until `resolve()`, then node indexes (-1 for missing). */
  private refs!: Float64Array
  private nodeIdx!: Int32Array
  /** Sparse: tags only for ways the import has a use for beyond relation membership. */
  tags: (Record<string, string> | undefined)[] = []
  private order: Uint32Array | null = null
  private sorted = true
  private last = -Infinity

  add(id: number, refs: Float64Array, count: number, tags: Record<string, string> | undefined): void {
    if (id <= this.last) this.sorted = false
    this.last = id
    this.idsB.push(id)
    this.startB.push(this.refsB.length)
    if (this.refsB.length + count > this.refsB.data.length) this.refsB.grow(this.refsB.length + count)
    this.refsB.data.set(refs.subarray(0, count), this.refsB.length)
    this.refsB.length += count
    if (tags) this.tags[this.idsB.length - 1] = tags
  }

  get size(): number {
    return this.ids ? this.ids.length : this.idsB.length
  }

  /** Freezes the table and maps node ids to node indexes. */
  resolve(nodes: NodeTable): void {
    this.ids = this.idsB.trim()
    this.startB.push(this.refsB.length)
    this.start = this.startB.trim()
    this.refs = this.refsB.trim()
    this.nodeIdx = new Int32Array(this.refs.length)
    for (let i = 0; i < this.refs.length; i++) this.nodeIdx[i] = nodes.indexOf(this.refs[i])
    this.refs = new Float64Array(0)
    this.refsB = new Growable(new Float64Array(0))
    if (!this.sorted) {
      this.order = sortOrder(this.ids)
      this.ids = permute(this.ids, this.order, new Float64Array(this.order.length))
    }
  }

  /** Way index (insertion order) of an OSM way id, or -1. */
  indexOf(id: number): number {
    const k = search(this.ids, id)
    return k < 0 || !this.order ? k : this.order[k]
  }

  /** Node indexes of way `w` with nodes missing from the file dropped. */
  nodes(w: number): Int32Array {
    const s = this.start[w], e = this.start[w + 1]
    let missing = 0
    for (let i = s; i < e; i++) if (this.nodeIdx[i] < 0) missing++
    if (!missing) return this.nodeIdx.subarray(s, e)
    const out = new Int32Array(e - s - missing)
    for (let i = s, k = 0; i < e; i++) if (this.nodeIdx[i] >= 0) out[k++] = this.nodeIdx[i]
    return out
  }

  /** Whether every node of way `w` is present. */
  complete(w: number): boolean {
    for (let i = this.start[w]; i < this.start[w + 1]; i++) if (this.nodeIdx[i] < 0) return false
    return true
  }

  wayId(w: number): number {
    return this.order ? this.idsB.data[w] : this.ids[w]
  }
}

function search(ids: Float64Array, id: number): number {
  let lo = 0, hi = ids.length - 1
  while (lo <= hi) {
    const mid = (lo + hi) >>> 1
    const v = ids[mid]
    if (v < id) lo = mid + 1
    else if (v > id) hi = mid - 1
    else return mid
  }
  return -1
}

function sortOrder(ids: Float64Array): Uint32Array {
  const order = new Uint32Array(ids.length)
  for (let i = 0; i < order.length; i++) order[i] = i
  return order.sort((a, b) => ids[a] - ids[b])
}

function permute<T extends Float64Array | Int32Array>(src: T, order: Uint32Array, dst: T): T {
  for (let i = 0; i < order.length; i++) dst[i] = src[order[i]]
  return dst
}
