import type {Job} from '../jobs/index.js'
import {pruneChanges} from './changes.js'

/** Keeps the change feed short: a process that was away longer than that rebuilds its followers. */
export const changePruneJob: Job = {
  name: 'change-prune',
  everyMs: 60_000,
  async run({store}) {
    const pruned = await pruneChanges(store)
    return pruned ? {pruned} : undefined
  },
}
