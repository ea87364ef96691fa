/**
 * A later turn of the event loop for long request work (list pages read and rendered in slices).
 * At most one waiter resumes per turn, so slices of concurrent pages run one per turn with the
 * poll for I/O between them, instead of all in one check phase: four pages of 1,000 geofences in
 * flight made each turn ~20 ms and other clients waited for several (bench/abuse).
 */
const waiting: Array<() => void> = []

export function nextTurn(): Promise<void> {
  return new Promise((resolve) => {
    waiting.push(resolve)
    if (waiting.length === 1) setImmediate(resumeOne)
  })
}

function resumeOne(): void {
  const resolve = waiting.shift()
  if (waiting.length) setImmediate(resumeOne)
  resolve?.()
}
