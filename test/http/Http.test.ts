import { assert, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { plannedRoutes } from "../../src/http/PlannedRoutes.ts"
import { expectError, TestApi } from "../support/Api.ts"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("HTTP conventions", (it) => {
  it.effect("serves every route at / and under /v1", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const root = yield* api.request("GET", "/_health")
      const v1 = yield* api.request("GET", "/v1/_health")
      assert.strictEqual(root.status, 200)
      assert.deepStrictEqual(v1.body, root.body)
      expect(root.body).toMatchObject({ status: "ok", database: "ok" })
      assert.match(root.headers.get("x-request-id") ?? "", /^[0-9a-f]{6}-/)
    }))

  it.effect("answers an unknown route with 404 GENERAL_ERROR", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      for (const path of ["/nope", "/v1/nope", "/v2/_health", "/_health/"]) {
        const reply = yield* api.request("GET", path)
        assert.strictEqual(reply.status, 404, path)
        expect(reply.body).toMatchObject({ code: "GENERAL_ERROR" })
      }
    }))

  it.effect("answers endpoints not built yet with 501 NOT_IMPLEMENTED, never a fake success", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      // Every tenth planned route, under / and /v1, with its path parameters filled in.
      const sample = plannedRoutes.filter((_, i) => i % 10 === 0)
      assert.isAbove(sample.length, 0)
      for (const [i, [method, template]] of sample.entries()) {
        const path = `${i % 2 === 0 ? "" : "/v1"}${template.replace(/\{[^}]+\}/g, "1")}`
        const reply = yield* api.request(method, path, { body: method === "GET" ? undefined : { email: "a@b.co" } })
        assert.strictEqual(reply.status, 501, path)
        expect(reply.body).toMatchObject({ code: "NOT_IMPLEMENTED" })
      }
    }))

  it.effect("serves the OpenAPI document and the reference page", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const doc = yield* api.request("GET", "/openapi.json")
      assert.strictEqual(doc.status, 200)
      expect(doc.body).toHaveProperty(["paths", "/guilds/{guild_id}"])
      const page = yield* api.request("GET", "/docs")
      assert.strictEqual(page.status, 200)
      assert.include(String(page.body), "openapi")
    }))

  it.effect("refuses a missing or unknown token with 401 UNAUTHORIZED", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      for (const token of [undefined, "", "nope", "Bot 1.x", "Bearer x", "Weird scheme"]) {
        const reply = yield* api.request("GET", "/users/@me", token === undefined ? {} : { token })
        assert.strictEqual(reply.status, 401, String(token))
        assert.deepStrictEqual(reply.body, { code: "UNAUTHORIZED", message: "401: Unauthorized" })
      }
    }))

  it.effect("answers malformed JSON, wrong types and wrong content types with 4xx and the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const malformed = yield* api.request("POST", "/guilds", {
        token,
        rawBody: "{\"name\":",
        headers: { "content-type": "application/json" }
      })
      assert.strictEqual(malformed.status, 400)
      expect(malformed.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "root" }] })

      const wrongType = yield* api.request("POST", "/guilds", { token, body: { name: 42 } })
      assert.strictEqual(wrongType.status, 400)
      expect(wrongType.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "name" }] })

      const notAnObject = yield* api.request("POST", "/guilds", { token, body: [1, 2, 3] })
      assert.strictEqual(notAnObject.status, 400)

      const text = yield* api.request("POST", "/guilds", { token, rawBody: "name=x", headers: { "content-type": "text/plain" } })
      expectError(text, 415, "UNSUPPORTED_MEDIA_TYPE")
    }))

  it.effect("refuses a body over the limit with 413, and deep or odd input without a 500", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const huge = yield* api.request("POST", "/guilds", { token, body: { name: "x".repeat(2_000_000) } })
      expectError(huge, 413, "PAYLOAD_TOO_LARGE")

      const deep = yield* api.request("POST", "/guilds", {
        token,
        rawBody: "[".repeat(100_000) + "]".repeat(100_000),
        headers: { "content-type": "application/json" }
      })
      assert.strictEqual(deep.status, 400)

      // 101 code points in 202 UTF-16 units: over the 100 limit however it is counted.
      const emoji = yield* api.request("POST", "/guilds", { token, body: { name: "😀".repeat(101) } })
      assert.strictEqual(emoji.status, 400)
      const fits = yield* api.request("POST", "/guilds", { token, body: { name: "😀".repeat(100) } })
      assert.strictEqual(fits.status, 200)

      const lone = yield* api.request("POST", "/guilds", { token, rawBody: "{\"name\":\"\\ud800\"}", headers: { "content-type": "application/json" } })
      assert.isBelow(lone.status, 500)
    }))

  it.effect("checks path snowflakes with INVALID_SNOWFLAKE_FORMAT and SNOWFLAKE_OUT_OF_RANGE", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const bad = yield* api.request("GET", "/guilds/abc", { token })
      assert.strictEqual(bad.status, 400)
      expect(bad.body).toMatchObject({ errors: [{ path: "guild_id", code: "INVALID_SNOWFLAKE_FORMAT" }] })
      const big = yield* api.request("GET", "/guilds/9999999999999999999", { token })
      assert.strictEqual(big.status, 400)
      expect(big.body).toMatchObject({ errors: [{ path: "guild_id", code: "SNOWFLAKE_OUT_OF_RANGE" }] })
    }))
})
