import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit, Option } from "effect"
import { failure, settingsFrom } from "../support/Settings.ts"

describe("settings", () => {
  it.effect("default to the embedded single process", () =>
    Effect.gen(function*() {
      const exit = yield* settingsFrom({})
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) {
        assert.strictEqual(exit.value.port, 8080)
        assert.isTrue(Option.isNone(exit.value.databaseUrl))
        assert.strictEqual(exit.value.redisKeyPrefix, "guildhall:")
      }
    }))

  it.effect("stop at start with a message naming the bad variable", () =>
    Effect.gen(function*() {
      assert.include(failure(yield* settingsFrom({ PORT: "abc" })), "PORT")
      assert.include(failure(yield* settingsFrom({ SHARD_LOCK_EXPIRATION_SECONDS: "0" })), "SHARD_LOCK_EXPIRATION_SECONDS")
      assert.include(failure(yield* settingsFrom({ REDIS_URL: "redis://127.0.0.1:6379" })), "DATABASE_URL")
    }))

  it.effect("allow browser pages of PUBLIC_URL's origin by default, or of the origins CORS_ORIGINS lists", () =>
    Effect.gen(function*() {
      const origins = (env: Record<string, string>) =>
        Effect.map(settingsFrom(env), (exit) => (Exit.isSuccess(exit) ? exit.value.corsOrigins : failure(exit)))
      assert.deepStrictEqual(yield* origins({}), ["http://localhost:8080"])
      assert.deepStrictEqual(yield* origins({ PUBLIC_URL: "https://chat.example.com/app/" }), ["https://chat.example.com"])
      assert.deepStrictEqual(
        yield* origins({ CORS_ORIGINS: "https://App.example.com/, http://127.0.0.1:5173" }),
        ["https://app.example.com", "http://127.0.0.1:5173"]
      )
      assert.deepStrictEqual(yield* origins({ CORS_ORIGINS: "*" }), ["*"])
      for (const wrong of ["https://app.example.com/path", "app.example.com", "ftp://files.example.com"]) {
        assert.include(failure(yield* settingsFrom({ CORS_ORIGINS: wrong })), "CORS_ORIGINS", wrong)
      }
    }))

  it.effect("record metrics by default, METRICS=off records none, METRICS_PORT and METRICS_HOST place the listener", () =>
    Effect.gen(function*() {
      const metrics = (env: Record<string, string>) =>
        Effect.map(settingsFrom(env), (exit) => (Exit.isSuccess(exit) ? exit.value.metrics : failure(exit)))
      assert.deepStrictEqual(yield* metrics({}), { enabled: true, port: Option.none(), host: "127.0.0.1" })
      assert.deepStrictEqual(
        yield* metrics({ METRICS: "off", METRICS_PORT: "9464", METRICS_HOST: "0.0.0.0" }),
        { enabled: false, port: Option.some(9464), host: "0.0.0.0" }
      )
      assert.include(failure(yield* settingsFrom({ METRICS: "maybe" })), "METRICS")
      assert.include(failure(yield* settingsFrom({ METRICS_PORT: "70000" })), "METRICS_PORT")
    }))

  it.effect("read the telemetry settings: OTLP endpoint and service name, log format by NODE_ENV unless LOG_FORMAT says, HEALTH_PORT", () =>
    Effect.gen(function*() {
      const read = (env: Record<string, string>) =>
        Effect.map(settingsFrom(env), (exit) => {
          if (Exit.isFailure(exit)) return failure(exit)
          const { otlpEndpoint, otelServiceName, otlpExportIntervalMillis, otlpMaxBatchSize, logFormat, healthPort } = exit.value
          return { otlpEndpoint, otelServiceName, otlpExportIntervalMillis, otlpMaxBatchSize, logFormat, healthPort }
        })
      assert.deepStrictEqual(yield* read({}), {
        otlpEndpoint: Option.none(),
        otelServiceName: Option.none(),
        otlpExportIntervalMillis: 5_000,
        otlpMaxBatchSize: 512,
        logFormat: "pretty",
        healthPort: Option.none()
      })
      assert.deepStrictEqual(yield* read({
        OTEL_EXPORTER_OTLP_ENDPOINT: "http://collector:4318/",
        OTEL_SERVICE_NAME: "chat-api",
        OTEL_BSP_SCHEDULE_DELAY: "1000",
        OTEL_BSP_MAX_EXPORT_BATCH_SIZE: "128",
        NODE_ENV: "production",
        HEALTH_PORT: "8081"
      }), {
        otlpEndpoint: Option.some("http://collector:4318"),
        otelServiceName: Option.some("chat-api"),
        otlpExportIntervalMillis: 1_000,
        otlpMaxBatchSize: 128,
        logFormat: "json",
        healthPort: Option.some(8081)
      })
      const format = (env: Record<string, string>) => Effect.map(read(env), (r) => (typeof r === "string" ? r : r.logFormat))
      assert.strictEqual(yield* format({ NODE_ENV: "production", LOG_FORMAT: "pretty" }), "pretty")
      assert.strictEqual(yield* format({ LOG_FORMAT: "json" }), "json")
      assert.include(yield* format({ LOG_FORMAT: "xml" }), "LOG_FORMAT")
      assert.include(failure(yield* settingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: "collector:4318" })), "OTEL_EXPORTER_OTLP_ENDPOINT")
      assert.include(failure(yield* settingsFrom({ HEALTH_PORT: "0x" })), "HEALTH_PORT")
      const ratio = (env: Record<string, string>) =>
        Effect.map(settingsFrom(env), (exit) => (Exit.isSuccess(exit) ? exit.value.traceSampleRatio : failure(exit)))
      assert.strictEqual(yield* ratio({}), 1)
      assert.strictEqual(yield* ratio({ OTEL_TRACES_SAMPLER: "parentbased_traceidratio", OTEL_TRACES_SAMPLER_ARG: "0.25" }), 0.25)
      assert.strictEqual(yield* ratio({ OTEL_TRACES_SAMPLER: "always_off" }), 0)
      assert.strictEqual(yield* ratio({ OTEL_TRACES_SAMPLER_ARG: "0.25" }), 1)
      assert.include(String(yield* ratio({ OTEL_TRACES_SAMPLER: "traceidratio", OTEL_TRACES_SAMPLER_ARG: "2" })), "OTEL_TRACES_SAMPLER_ARG")
      assert.include(String(yield* ratio({ OTEL_TRACES_SAMPLER: "jaeger_remote" })), "OTEL_TRACES_SAMPLER")
    }))
})
