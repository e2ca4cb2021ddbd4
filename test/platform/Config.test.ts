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
})
