import { assert, describe, it } from "@effect/vitest"
import { ConfigProvider, Effect, Option, Redacted } from "effect"
import { settingsConfig } from "../../src/platform/Config.ts"

describe("GIF provider settings", () => {
  const read = (env: Record<string, string>) => settingsConfig.parse(ConfigProvider.fromUnknown(env))

  it.effect("default to the providers' public APIs without a key; an empty key is no key", () =>
    Effect.gen(function*() {
      const unset = yield* read({})
      assert.strictEqual(unset.gifa.apiUrl, "https://tenor.googleapis.com/v2")
      assert.strictEqual(unset.gifb.apiUrl, "https://api.klipy.com/api/v1")
      assert.isTrue(Option.isNone(unset.gifa.apiKey))
      assert.isTrue(Option.isNone(unset.gifb.apiKey))
      assert.strictEqual(unset.gifProviderTimeoutMillis, 5_000)
      assert.isTrue(Option.isNone((yield* read({ GIFA_API_KEY: "  " })).gifa.apiKey))

      const set = yield* read({ GIFB_API_URL: "http://127.0.0.1:9000/api/v1/", GIFB_API_KEY: "k", GIF_PROVIDER_TIMEOUT_MS: "800" })
      assert.strictEqual(set.gifb.apiUrl, "http://127.0.0.1:9000/api/v1")
      assert.strictEqual(Option.map(set.gifb.apiKey, Redacted.value).pipe(Option.getOrNull), "k")
      assert.strictEqual(set.gifProviderTimeoutMillis, 800)
    }))

  it.effect("a URL that is not http(s) stops the start with a message naming the setting", () =>
    Effect.gen(function*() {
      for (const url of ["tenor.googleapis.com/v2", "ftp://example.com", "http://"]) {
        const error = yield* Effect.flip(read({ GIFA_API_URL: url }))
        assert.include(String(error), "GIFA_API_URL")
      }
      assert.include(String(yield* Effect.flip(read({ GIF_PROVIDER_TIMEOUT_MS: "0" }))), "GIF_PROVIDER_TIMEOUT_MS")
    }))
})
