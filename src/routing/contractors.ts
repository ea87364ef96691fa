import os from 'node:os'
import {Worker} from 'node:worker_threads'
import {type Arcs, type Hierarchy, contract} from './ch.js'

/** Contracts one graph, reporting progress as a fraction. */
export type Contractor = (arcs: Arcs, progress: (fraction: number) => Promise<void>) => Promise<Hierarchy>

/**
 * At most `max` (default two) contractions at a time in worker threads (each holds a few hundred MB of dynamic
 * graph; two keep the import under its 2 GB budget and fill the 2-core machines we target). From
 * TypeScript sources (the tests) there is no compiled worker to start, so they contract in process.
 */
export function contractors(max = 2): {parallel: number; run: Contractor; close(): Promise<void>} {
  const file = new URL('./ch-worker.js', import.meta.url)
  if (!import.meta.url.endsWith('.js')) {
    return {parallel: 1, run: (arcs, progress) => contract(arcs, (done, total) => progress(done / total)), close: async () => {}}
  }
  const parallel = Math.max(1, Math.min(max, os.availableParallelism()))
  const idle: Worker[] = [], all: Worker[] = []
  const waiting: ((w: Worker) => void)[] = []
  const take = () => new Promise<Worker>((resolve) => {
    const w = idle.pop() ?? (all.length < parallel ? spawn() : undefined)
    if (w) resolve(w)
    else waiting.push(resolve)
  })
  const spawn = () => {
    const w = new Worker(file)
    all.push(w)
    return w
  }
  const release = (w: Worker) => {
    const next = waiting.shift()
    if (next) next(w)
    else idle.push(w)
  }
  const run: Contractor = async (arcs, progress) => {
    const w = await take()
    try {
      return await new Promise<Hierarchy>((resolve, reject) => {
        const onMessage = (m: {progress?: number; hierarchy?: Hierarchy}) => {
          if (m.hierarchy) {
            off()
            resolve(m.hierarchy)
          } else if (m.progress !== undefined) progress(m.progress).catch((error) => (off(), reject(error)))
        }
        const onError = (error: Error) => (off(), reject(error))
        const onExit = (code: number) => (off(), reject(new Error(`contraction worker exited with code ${code}`)))
        const off = () => {
          w.off('message', onMessage)
          w.off('error', onError)
          w.off('exit', onExit)
        }
        w.on('message', onMessage)
        w.on('error', onError)
        w.on('exit', onExit)
        w.postMessage(arcs)
      })
    } catch (error) {
      await w.terminate()
      all.splice(all.indexOf(w), 1)
      throw error
    } finally {
      if (all.includes(w)) release(w)
    }
  }
  return {parallel, run, close: async () => void (await Promise.all(all.map((w) => w.terminate())))}
}
