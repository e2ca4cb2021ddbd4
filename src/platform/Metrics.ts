import { Context, Effect, Metric, type Scope } from "effect"
import { constVoid } from "effect/Function"

/*
 * The metrics every process records, in Effect's own `Metric` registry (the
 * default one of the process, which Effect's cluster engine records into too);
 * `/metrics` renders it with `effect/observability/PrometheusMetrics`
 * (MetricsExport.ts). Names start with `guildhall_`; times are in seconds.
 *
 * Recording sites run on every request, actor call or write, so a series
 * (one metric with its label values) is made once, on first use, and kept:
 * a site looks its series up and updates it, it never builds one. A series
 * keeps its figures in plain numbers where it is recorded, registered in the
 * registry with a hook that reads them when metrics are scraped: updating
 * through the registry instead looks the series up there on every update,
 * which was most of what the metrics cost a request.
 */

/**
 * Whether this process records metrics (METRICS). Read where a recording site
 * is built, so with metrics off the sites are not wrapped at all. The process's
 * layer sets it from the settings; elsewhere (tests building parts) it is on.
 */
export const MetricsOn = Context.Reference<boolean>("guildhall/MetricsOn", { defaultValue: () => true })

/** Where series are updated: the process's default registry, which the exporter reads too. */
const registry: Context.Context<never> = Context.empty()

/** `make(key)`, made the first time `key` is asked for and kept in `store` (a series per label value). */
export const madeOnce = <K, V>(
  store: { get: (key: K) => V | undefined; set: (key: K, value: V) => unknown },
  make: (key: K) => V
) =>
  (key: K): V => {
    let made = store.get(key)
    if (made === undefined) store.set(key, made = make(key))
    return made
  }

/** Seconds since an arbitrary origin, for durations (monotonic, cheap). */
export const seconds = (): number => performance.now() / 1000

/** Latency buckets from half a millisecond to ten seconds. */
const LATENCY_SECONDS = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]

/** Batch sizes up to WriteBatches' MAX_BATCH. */
const BATCH_SIZES = [1, 2, 4, 8, 16, 32, 64, 128, 256]

/** Registers `metric` in the registry with its figures read from `get` when metrics are scraped. */
const readWhenScraped = <State>(metric: Metric.Metric<never, State>, get: () => State) =>
  Metric.registerUnsafe(metric, registry, { get, update: constVoid, modify: constVoid })

/** A counter series; the function it returns counts one. */
const countedSeries = (name: string, description: string, attributes: Record<string, string>) => {
  let count = 0
  readWhenScraped(Metric.counter(name, { description, attributes, incremental: true }), () => ({ count, incremental: true }))
  return (): void => {
    count++
  }
}

/** A histogram series over `boundaries` (ascending); the function it returns puts a value in its bucket. */
const histogramSeries = (
  name: string,
  description: string,
  attributes: Record<string, string>,
  boundaries: ReadonlyArray<number>
) => {
  const inBucket = new Float64Array(boundaries.length + 1)
  let count = 0
  let sum = 0
  let min = Number.MAX_VALUE
  let max = -Number.MAX_VALUE
  const buckets = () => {
    let below = 0
    return boundaries.map((boundary, i): [number, number] => [boundary, below += inBucket[i] ?? 0])
  }
  readWhenScraped(Metric.histogram(name, { description, attributes, boundaries }), () => ({ buckets: buckets(), count, min, max, sum }))
  return (value: number): void => {
    let i = 0
    while (i < boundaries.length && value > (boundaries[i] ?? Infinity)) i++
    inBucket[i] = (inBucket[i] ?? 0) + 1
    count++
    sum += value
    if (value < min) min = value
    if (value > max) max = value
  }
}

const latency = (name: string, description: string, attributes: Record<string, string>) =>
  histogramSeries(name, description, attributes, LATENCY_SECONDS)

// -----------------------------------------------------------------------------
// HTTP
// -----------------------------------------------------------------------------

/** The route label of a request no route matched: one series for all of them, whatever their URL. */
export const UNMATCHED_ROUTE = "(unmatched)"

/** One route's series: its latency, and a request counter per status met so far. */
export interface HttpRouteSeries {
  readonly record: (status: number, elapsedSeconds: number) => void
}

/** The series of `method route` (a route template such as `/channels/:channelId/messages`, never a raw URL). */
export const httpRouteSeries = (method: string, route: string): HttpRouteSeries => {
  const duration = latency("guildhall_http_request_duration_seconds", "Time to the response of an HTTP request, by route", {
    method,
    route
  })
  const counterOf = madeOnce(new Map<number, () => void>(), (status) =>
    countedSeries("guildhall_http_requests_total", "HTTP requests answered, by route and status", {
      method,
      route,
      status: String(status)
    }))
  return {
    record: (status, elapsedSeconds) => {
      counterOf(status)()
      duration(elapsedSeconds)
    }
  }
}

// -----------------------------------------------------------------------------
// Actor calls (src/guilds/Actors.ts)
// -----------------------------------------------------------------------------

export type ActorCallKind = "read" | "write"
/** `local`: served in this process from the actor's published state; `remote`: through the actor's mailbox. */
export type ActorCallPlace = "local" | "remote"
/** `refused`: a 400/403/404 of the operation itself; `unavailable`: 503 (timeout, actor away); `failed`: anything else. */
export type ActorCallOutcome = "ok" | "refused" | "unavailable" | "failed"

/** Records calls of one kind and place: a counter per outcome, and the latency of calls through the mailbox. */
export const actorCallSeries = (kind: ActorCallKind, place: ActorCallPlace) => {
  const counter = (outcome: ActorCallOutcome) =>
    countedSeries("guildhall_actor_calls_total", "Calls of the HTTP side on guild actors, by kind, place and outcome", {
      kind,
      place,
      outcome
    })
  // Fields rather than a Map: every call finds its counter with one property load.
  const counters: Record<ActorCallOutcome, () => void> = {
    ok: counter("ok"),
    refused: counter("refused"),
    unavailable: counter("unavailable"),
    failed: counter("failed")
  }
  // Local calls take microseconds: a histogram of them would say nothing.
  const duration = place === "remote"
    ? latency("guildhall_actor_call_duration_seconds", "Time of an actor call through the mailbox, by kind", { kind })
    : undefined
  /** Counts a call; `elapsedSeconds` is kept for remote calls only. */
  return (outcome: ActorCallOutcome, elapsedSeconds: number): void => {
    counters[outcome]()
    duration?.(elapsedSeconds)
  }
}

// -----------------------------------------------------------------------------
// Write batches (shards/actors/WriteBatches.ts)
// -----------------------------------------------------------------------------

/** What one kind of actor (`guild`, `user`, `dm`) records of its write batches. */
export interface WriteBatchSeries {
  /** A write waited `waitedSeconds` in the actor's queue before its batch started. */
  readonly queued: (waitedSeconds: number) => void
  /** A batch of `size` writes committed (or failed to) in `elapsedSeconds`. */
  readonly committed: (size: number, elapsedSeconds: number, ok: boolean) => void
}

const makeWriteBatchSeries = (actor: string): WriteBatchSeries => {
  const wait = latency(
    "guildhall_actor_queue_wait_seconds",
    "Time a write waits in its actor's queue before its batch starts, by actor kind",
    { actor }
  )
  const size = histogramSeries("guildhall_write_batch_size", "Writes committed in one transaction, by actor kind", { actor }, BATCH_SIZES)
  const commit = latency("guildhall_write_batch_commit_seconds", "Time of one batch's commit, by actor kind", { actor })
  const failures = countedSeries(
    "guildhall_write_batch_failures_total",
    "Batch commits that failed (their writes are retried alone), by actor kind",
    { actor }
  )
  return {
    queued: wait,
    committed: (writes, elapsedSeconds, ok) => {
      size(writes)
      commit(elapsedSeconds)
      if (!ok) failures()
    }
  }
}

/** The series of one kind of actor, made once for all its actors. */
export const writeBatchSeries = madeOnce(new Map<string, WriteBatchSeries>(), makeWriteBatchSeries)

// -----------------------------------------------------------------------------
// Actor state loads (shards/actors/Mailbox.ts)
// -----------------------------------------------------------------------------

/** The load-time series of one kind of actor, made once for all its actors. */
export const stateLoadSeries = madeOnce(new Map<string, (elapsedSeconds: number) => void>(), (actor) =>
  latency(
    "guildhall_actor_state_load_seconds",
    "Time an actor takes to load its state from Postgres (what the first messages of its mailbox wait for), by actor kind",
    { actor }
  ))

// -----------------------------------------------------------------------------
// Read when scraped
// -----------------------------------------------------------------------------

/** Registers a series whose state `get` reads when metrics are scraped, for the scope; nothing when metrics are off. */
const registerOnScrape = <State>(metric: Metric.Metric<never, State>, get: () => State): Effect.Effect<void, never, Scope.Scope> =>
  Effect.gen(function*() {
    if (!(yield* MetricsOn)) return
    yield* Effect.acquireRelease(
      Effect.sync(() => readWhenScraped(metric, get)),
      (registration) => Effect.sync(registration.remove)
    )
  })

/** A gauge whose value is read when metrics are scraped (a map's size, memory): nothing is done between scrapes. */
export const gaugeOnScrape = (
  name: string,
  description: string,
  attributes: Record<string, string>,
  read: () => number
): Effect.Effect<void, never, Scope.Scope> =>
  registerOnScrape(Metric.gauge(name, { description, attributes }), () => ({ value: read() }))

/**
 * A counter kept as a plain number where it is counted (a gateway dispatch:
 * thousands a second in a fan-out), read when metrics are scraped.
 */
export const counterOnScrape = (name: string, description: string, read: () => number): Effect.Effect<void, never, Scope.Scope> =>
  registerOnScrape(Metric.counter(name, { description, incremental: true }), () => ({ count: read(), incremental: true }))
