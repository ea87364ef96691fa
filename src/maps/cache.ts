import type {Rendered} from './index.js'

/** A byte-bounded LRU of rendered images (Map keeps insertion order: re-insert on hit). */
export class ImageCache {
  private readonly entries = new Map<string, Rendered>()
  private bytes = 0

  constructor(private readonly maxBytes: number) {}

  get(key: string): Rendered | undefined {
    const e = this.entries.get(key)
    if (e) {
      this.entries.delete(key)
      this.entries.set(key, e)
    }
    return e
  }

  set(key: string, value: Rendered): void {
    if (value.png.length > this.maxBytes / 4) return
    const old = this.entries.get(key)
    if (old) {
      this.bytes -= old.png.length
      this.entries.delete(key)
    }
    this.entries.set(key, value)
    this.bytes += value.png.length
    for (const [k, e] of this.entries) {
      if (this.bytes <= this.maxBytes) break
      this.entries.delete(k)
      this.bytes -= e.png.length
    }
  }
}
