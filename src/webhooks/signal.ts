import type {Store} from '../store/db.js'

const listeners = new WeakMap<Store, Set<() => void>>()

/**
 * Deliveries were committed on this store: wakes the delivery workers listening on it. The event
 * recorder calls it after its commit; other processes' deliveries are found by the workers' poll.
 */
export function deliveriesOwed(store: Store): void {
  for (const listener of listeners.get(store) ?? []) listener()
}

/** Calls `listener` whenever this process commits deliveries on `store`; returns the unsubscribe. */
export function onDeliveriesOwed(store: Store, listener: () => void): () => void {
  let set = listeners.get(store)
  if (!set) listeners.set(store, (set = new Set()))
  set.add(listener)
  return () => set.delete(listener)
}
