// The part of autocannon 9's programmatic API that ops/bench uses (it ships no types).
// Shapes from node_modules/autocannon/lib/{init,run,aggregateResult}.js.
declare module "autocannon" {
  namespace autocannon {
    interface Options {
      url: string
      connections?: number
      /** Seconds. */
      duration?: number
      method?: string
      headers?: Record<string, string>
      body?: string
      /** Seconds a request may take before it counts as a timeout. */
      timeout?: number
      /** Requests to cycle through; `setupRequest` may rewrite each one before it is sent. */
      requests?: Array<{
        method?: string
        path?: string
        headers?: Record<string, string>
        body?: string
        setupRequest?: (request: { method?: string; path?: string; headers?: Record<string, string>; body?: string }) => {
          method?: string
          path?: string
          headers?: Record<string, string>
          body?: string
        }
      }>
      /** A run before the measured one, whose figures are not counted. */
      warmup?: { connections?: number; duration?: number }
    }

    /** A histogram summary: mean, min, max and percentiles as p50, p99, p99_9, ... */
    interface Histogram {
      average: number
      mean: number
      stddev: number
      min: number
      max: number
      total?: number
      p50: number
      p90: number
      p99: number
      [percentile: string]: number | undefined
    }

    interface Result {
      url: string
      connections: number
      /** Seconds. */
      duration: number
      errors: number
      timeouts: number
      non2xx: number
      resets: number
      "2xx": number
      statusCodeStats: Record<string, { count: number }>
      /** Milliseconds; only 2xx responses are counted. */
      latency: Histogram
      /** Completed requests per second (one sample a second); `total` is the count. */
      requests: Histogram & { sent: number }
      throughput: Histogram
    }

    interface Instance extends PromiseLike<Result> {
      stop(): void
    }
  }

  function autocannon(options: autocannon.Options): autocannon.Instance

  export = autocannon
}
