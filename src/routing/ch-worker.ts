import {parentPort} from 'node:worker_threads'
import {type Arcs, contract} from './ch.js'

/** A contraction worker: receives a mode's arcs, posts progress fractions, then the hierarchy (transferred). */
parentPort!.on('message', async (arcs: Arcs) => {
  const h = await contract(arcs, async (done, total) => parentPort!.postMessage({progress: done / total}))
  const buffers = Object.values(h).filter((v) => ArrayBuffer.isView(v)).map((v) => (v as Uint32Array).buffer as ArrayBuffer)
  parentPort!.postMessage({hierarchy: h}, buffers)
})
