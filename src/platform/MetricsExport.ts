import { NodeHttpServer } from "@effect/platform-node"
import { Context, Effect, Layer, Metric, Option } from "effect"
import { HttpRouter, HttpServerResponse } from "effect/http"
import { PrometheusMetrics } from "effect/observability"
import { SqlClient } from "effect/sql"
import { createServer } from "node:http"
import { monitorEventLoopDelay } from "node:perf_hooks"
import { AppConfig } from "./Config.ts"
import { DATABASE_APPLICATION_NAME } from "./Database.ts"
import { gaugeOnScrape, MetricsOn } from "./Metrics.ts"
import { RedisClient } from "./Redis.ts"

/** The Prometheus text format's content type (what Effect's exporter answers with). */
export const PROMETHEUS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

/** What every process records of itself: memory and event-loop delay, read when scraped. */
const processGauges = Effect.gen(function*() {
  const memory = (name: string, description: string, read: () => number) =>
    gaugeOnScrape(`guildhall_process_${name}_bytes`, description, {}, read)
  yield* memory("resident_memory", "Resident set size of the process", () => process.memoryUsage.rss())
  yield* memory("heap_used", "V8 heap in use", () => process.memoryUsage().heapUsed)
  yield* memory("heap_total", "V8 heap reserved", () => process.memoryUsage().heapTotal)
  yield* memory("external_memory", "Memory of buffers and other objects outside the V8 heap", () => process.memoryUsage().external)
})

/** The sampling timer of the event-loop delay, in ms. */
const EVENT_LOOP_RESOLUTION_MS = 10

/**
 * Event-loop delay over the time since the previous scrape (node:perf_hooks):
 * the histogram is read and reset by `refresh`, the gauges show what it read.
 * It records each timer interval whole, so the timer's own period is taken off.
 */
const eventLoopDelay = Effect.gen(function*() {
  const histogram = monitorEventLoopDelay({ resolution: EVENT_LOOP_RESOLUTION_MS })
  histogram.enable()
  yield* Effect.addFinalizer(() => Effect.sync(() => histogram.disable()))
  const window = { p50: 0, p99: 0, max: 0, mean: 0 }
  const delay = (nanoseconds: number) => Math.max(0, nanoseconds / 1e9 - EVENT_LOOP_RESOLUTION_MS / 1000)
  const refresh = () => {
    const sampled = histogram.count > 0
    window.p50 = sampled ? delay(histogram.percentile(50)) : 0
    window.p99 = sampled ? delay(histogram.percentile(99)) : 0
    window.max = sampled ? delay(histogram.max) : 0
    window.mean = sampled ? delay(histogram.mean) : 0
    histogram.reset()
  }
  const description = "Event-loop delay since the previous scrape, in seconds"
  for (const quantile of ["p50", "p99", "max", "mean"] as const) {
    yield* gaugeOnScrape("guildhall_event_loop_delay_seconds", description, { quantile }, () => window[quantile])
  }
  return refresh
})

/** The shared Redis connection, in cluster mode: whether it is ready, and the commands it waits on. */
const redisGauges = (redis: RedisClient["Service"]) =>
  Effect.gen(function*() {
    yield* gaugeOnScrape("guildhall_redis_connected", "1 while the Redis connection is ready", {}, () =>
      redis.status === "ready" ? 1 : 0)
    yield* gaugeOnScrape(
      "guildhall_redis_command_queue_length",
      "Commands sent to Redis and not answered yet",
      {},
      () => redis.commandQueue.length
    )
  })

const CONNECTION_STATES = ["active", "idle", "idle in transaction"] as const

/**
 * The connections of this process's Postgres pool, by state. The pool of
 * @effect/sql-pg does not show its counts, so Postgres is asked (pg_stat_activity,
 * by the application name this process connects with) when metrics are scraped;
 * the scrape's own query is not counted.
 */
const postgresGauges = (sql: SqlClient.SqlClient) =>
  Effect.gen(function*() {
    const gauges = new Map(CONNECTION_STATES.map((state) =>
      [
        state,
        Metric.gauge("guildhall_postgres_connections", {
          description: "Connections of this process's Postgres pool, by state (read from pg_stat_activity when scraped)",
          attributes: { state: state.replaceAll(" ", "_") }
        })
      ] as const
    ))
    const ask = sql<{ readonly state: string | null; readonly connections: number }>`
      SELECT state, count(*)::int AS connections FROM pg_stat_activity
      WHERE application_name = ${DATABASE_APPLICATION_NAME} GROUP BY state`
    return Effect.gen(function*() {
      const rows = yield* ask
      for (const [state, gauge] of gauges) {
        const row = rows.find((r) => r.state === state)
        const own = state === "active" ? 1 : 0
        yield* Metric.update(gauge, Math.max(0, (row?.connections ?? 0) - own))
      }
    }).pipe(Effect.timeout("1 second"), Effect.ignore)
  })

/**
 * The metrics of this process in the Prometheus text format, rendered by
 * Effect's exporter from the process's metric registry. `scrape` first reads
 * what is read per scrape (event-loop window, Postgres pool).
 */
export class MetricsExporter extends Context.Service<MetricsExporter, {
  readonly scrape: Effect.Effect<string>
}>()("guildhall/MetricsExporter") {
  static readonly layer = Layer.effect(
    MetricsExporter,
    Effect.gen(function*() {
      const format = PrometheusMetrics.format()
      if (!(yield* MetricsOn)) return MetricsExporter.of({ scrape: format })
      const { databaseUrl } = yield* AppConfig
      yield* processGauges
      const refreshEventLoop = yield* eventLoopDelay
      const redis = yield* Effect.serviceOption(RedisClient)
      if (Option.isSome(redis)) yield* redisGauges(redis.value)
      // The embedded database is one PGlite backend: there is no pool to look at.
      const sql = yield* Effect.serviceOption(SqlClient.SqlClient)
      const refreshPostgres = Option.isSome(sql) && Option.isSome(databaseUrl) ? yield* postgresGauges(sql.value) : Effect.void
      return MetricsExporter.of({
        scrape: Effect.sync(refreshEventLoop).pipe(Effect.andThen(refreshPostgres), Effect.andThen(format))
      })
    })
  )
}

/** `scrape` as the HTTP answer Prometheus reads. */
export const metricsResponse = (scrape: Effect.Effect<string>) =>
  Effect.map(scrape, (body) => HttpServerResponse.text(body, { contentType: PROMETHEUS_CONTENT_TYPE }))

/**
 * METRICS_PORT: `/metrics` on a plain HTTP listener of its own (METRICS_HOST),
 * without credentials: how Prometheus scrapes the shard processes, which have
 * no API. Keep it on a private network.
 */
export const MetricsListener = Layer.unwrap(Effect.gen(function*() {
  const { metrics } = yield* AppConfig
  if (!metrics.enabled || Option.isNone(metrics.port)) return Layer.empty
  const { scrape } = yield* MetricsExporter
  return HttpRouter.serve(HttpRouter.add("GET", "/metrics", metricsResponse(scrape)), { disableLogger: true }).pipe(
    Layer.provide(NodeHttpServer.layer(createServer, { port: metrics.port.value, host: metrics.host }))
  )
}))

/** METRICS for every layer built under it: provided around a process's whole layer (src/App.ts, shards/main.ts). */
export const metricsSwitch = (enabled: boolean) => Layer.succeed(MetricsOn, enabled)

/** The exporter and its METRICS_PORT listener, over the platform layers (Postgres, Redis when there is one). */
export const metricsLayer = Layer.provideMerge(MetricsListener, MetricsExporter.layer)
