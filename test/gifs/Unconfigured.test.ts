import { layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, TestApi } from "../support/Api.ts"

/** A deployment without either provider's key: the default. */
layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("GIF providers without a key", (it) => {
  it.effect("every route of both providers answers 503 FEATURE_TEMPORARILY_DISABLED, never an empty success", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      for (const provider of ["gifa", "gifb"]) {
        for (const path of ["featured", "search?q=cat", "trending-gifs", "suggest?q=cat"]) {
          expectError(yield* api.request("GET", `/${provider}/${path}`, { token }), 503, "FEATURE_TEMPORARILY_DISABLED")
        }
        const share = yield* api.request("POST", `/${provider}/register-share`, { token, body: { id: "123" } })
        expectError(share, 503, "FEATURE_TEMPORARILY_DISABLED")
      }
    }))

  it.effect("authentication and validation still come first: anonymous is 401, a bad query 400", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      expectError(yield* api.request("GET", "/gifa/search?q=cat"), 401, "UNAUTHORIZED")
      expectError(yield* api.request("GET", "/gifb/featured"), 401, "UNAUTHORIZED")
      expectError(yield* api.request("GET", "/gifa/search", { token }), 400, "INVALID_FORM_BODY")
    }))
})
