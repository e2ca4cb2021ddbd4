import { assert, describe, it } from "@effect/vitest"
import { Effect, Exit } from "effect"
import { failure, settingsFrom } from "../support/Settings.ts"
import { formatNetwork } from "../../src/platform/IpAddress.ts"

describe("media fetch and saved media settings", () => {
  it.effect("default to internal addresses refused, 10 MiB, 15 s and 50 memes", () =>
    Effect.gen(function*() {
      const exit = yield* settingsFrom({})
      assert.isTrue(Exit.isSuccess(exit))
      if (Exit.isSuccess(exit)) {
        assert.deepStrictEqual(exit.value.mediaFetch, { allowPrivate: false, allowedNetworks: [], maxBytes: 10 * 1024 * 1024, timeoutMillis: 15_000 })
        assert.strictEqual(exit.value.memesMaxPerUser, 50)
      }
    }))

  it.effect("read the allowed networks, and stop the start on a bad value naming the variable", () =>
    Effect.gen(function*() {
      const exit = yield* settingsFrom({ MEDIA_FETCH_ALLOW_PRIVATE: "true", MEDIA_FETCH_ALLOWED_NETWORKS: "10.1.2.3/24, fd00::1" })
      assert.isTrue(Exit.isSuccess(exit), failure(exit))
      if (Exit.isSuccess(exit)) {
        assert.isTrue(exit.value.mediaFetch.allowPrivate)
        assert.deepStrictEqual(exit.value.mediaFetch.allowedNetworks.map(formatNetwork), ["10.1.2.0/24", "fd00::1"])
      }
      assert.include(failure(yield* settingsFrom({ MEDIA_FETCH_ALLOWED_NETWORKS: "intranet" })), "MEDIA_FETCH_ALLOWED_NETWORKS")
      assert.include(failure(yield* settingsFrom({ MEDIA_FETCH_ALLOW_PRIVATE: "maybe" })), "MEDIA_FETCH_ALLOW_PRIVATE")
      assert.include(failure(yield* settingsFrom({ MEDIA_FETCH_MAX_BYTES: "0" })), "MEDIA_FETCH_MAX_BYTES")
      assert.include(failure(yield* settingsFrom({ MEMES_MAX_PER_USER: "-1" })), "MEMES_MAX_PER_USER")
    }))
})
