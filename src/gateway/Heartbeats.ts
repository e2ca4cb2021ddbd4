/** A connection as the heartbeat watch sees it. */
export interface Watched {
  /** When it times out unless a heartbeat comes first (ms since the epoch). */
  readonly deadline: () => number
  readonly expire: () => void
}

/**
 * One timer for every connection's heartbeat deadline, instead of a timer (or
 * a fiber waiting on one) per connection: it looks at each connection a few
 * times per interval, so a deadline is noticed at most a quarter interval
 * (or a second) late. The timer runs only while connections are watched.
 */
export const makeHeartbeats = (intervalMillis: number) => {
  const watched = new Set<Watched>()
  const period = Math.max(10, Math.min(1000, Math.floor(intervalMillis / 4)))
  let timer: NodeJS.Timeout | undefined
  const sweep = () => {
    const now = Date.now()
    for (const w of watched) {
      if (w.deadline() >= now) continue
      watched.delete(w)
      w.expire()
    }
    if (watched.size === 0 && timer !== undefined) {
      clearInterval(timer)
      timer = undefined
    }
  }
  return {
    /** Watches a connection until it expires or the returned function is called. */
    watch: (w: Watched): (() => void) => {
      watched.add(w)
      if (timer === undefined) timer = setInterval(sweep, period).unref()
      return () => void watched.delete(w)
    }
  }
}
