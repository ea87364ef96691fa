/**
 * When attempt number `attempts` (1 for the first) has failed: the time of the next one, or null
 * when the schedule is spent and the delivery is dead. Delays are jittered by ±20 % so deliveries
 * that failed together (a receiver outage) do not all come back at the same instant.
 */
export function nextAttemptAt(delaysMs: readonly number[], attempts: number, now = Date.now(), random = Math.random): number | null {
  if (attempts > delaysMs.length) return null
  const delay = delaysMs[attempts - 1]
  return now + Math.round(delay * (0.8 + 0.4 * random()))
}
