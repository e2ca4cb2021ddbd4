import { assert, describe, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { request as httpRequest } from "node:http"
import { createGuild } from "../support/Cast.ts"
import { TestApi } from "../support/Api.ts"

const PAGE = "http://127.0.0.1:5173"
const OTHER_PAGE = "http://127.0.0.1:6006"

/**
 * A WebSocket upgrade of the gateway as a browser page of `origin` sends it (none: a bot):
 * the status the server answers, 101 when it upgrades.
 */
const upgradeStatus = (baseUrl: string, origin?: string) =>
  Effect.promise(() =>
    new Promise<number>((done, fail) => {
      const headers: Record<string, string> = {
        connection: "Upgrade",
        upgrade: "websocket",
        "sec-websocket-version": "13",
        "sec-websocket-key": "dGhlIHNhbXBsZSBub25jZQ=="
      }
      if (origin !== undefined) headers.origin = origin
      const request = httpRequest(`${baseUrl}/gateway/socket?v=1&encoding=json`, { headers })
      request.on("upgrade", (response, socket) => {
        socket.destroy()
        done(response.statusCode ?? 0)
      })
      request.on("response", (response) => {
        response.resume()
        done(response.statusCode ?? 0)
      })
      request.on("error", fail)
      request.end()
    })
  )

describe("CORS and security headers", () => {
  layer(TestApi.layerWith({ CORS_ORIGINS: PAGE, RATE_LIMITS: "on", PUBLIC_URL: "https://chat.example.test" }), {
    timeout: 120_000,
    excludeTestServices: true
  })("a deployment reached over https, with one web client origin", (it) => {
    it.effect("answers a preflight from the allowed origin before auth and rate limits, naming what clients send", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const reply = yield* api.request("OPTIONS", "/v1/channels/123/messages", {
          headers: {
            origin: PAGE,
            "access-control-request-method": "POST",
            "access-control-request-headers": "authorization,content-type,x-audit-log-reason,x-service-sudo-mode-jwt"
          }
        })
        assert.strictEqual(reply.status, 204)
        const headers = reply.headers
        assert.strictEqual(headers.get("access-control-allow-origin"), PAGE)
        expect(headers.get("access-control-allow-methods")?.split(/,\s*/)).toEqual(
          expect.arrayContaining(["GET", "POST", "PUT", "PATCH", "DELETE"])
        )
        expect(headers.get("access-control-allow-headers")?.split(/,\s*/)).toEqual(
          expect.arrayContaining(["authorization", "content-type", "x-audit-log-reason", "x-service-sudo-mode-jwt"])
        )
        assert.isNull(headers.get("x-ratelimit-limit"))
        assert.strictEqual(headers.get("x-content-type-options"), "nosniff")
      }))

    it.effect("lets the allowed origin's scripts read the answer and its rate-limit and sudo headers", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { token } = yield* api.register()
        const { channelId } = yield* createGuild(token)
        const reply = yield* api.request("POST", `/v1/channels/${channelId}/messages`, {
          token,
          body: { content: "from a web page" },
          headers: { origin: PAGE }
        })
        assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
        assert.strictEqual(reply.headers.get("access-control-allow-origin"), PAGE)
        assert.strictEqual(reply.headers.get("vary"), "Origin")
        assert.isNotNull(reply.headers.get("x-ratelimit-limit"))
        expect(reply.headers.get("access-control-expose-headers")?.split(/,\s*/)).toEqual(
          expect.arrayContaining(["x-ratelimit-limit", "x-ratelimit-remaining", "x-ratelimit-reset", "retry-after", "x-service-sudo-mode-jwt"])
        )
        // An error answer is readable too, so the page can show why.
        const refused = yield* api.request("GET", "/v1/users/@me", { headers: { origin: PAGE } })
        assert.strictEqual(refused.status, 401)
        assert.strictEqual(refused.headers.get("access-control-allow-origin"), PAGE)
      }))

    it.effect("never allows another origin", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const preflight = yield* api.request("OPTIONS", "/v1/channels/123/messages", {
          headers: { origin: OTHER_PAGE, "access-control-request-method": "POST" }
        })
        assert.isNull(preflight.headers.get("access-control-allow-origin"))
        const reply = yield* api.request("GET", "/v1/gateway", { headers: { origin: OTHER_PAGE } })
        assert.isNull(reply.headers.get("access-control-allow-origin"))
      }))

    it.effect("sends the security headers on every answer, HSTS because PUBLIC_URL is https", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        for (const path of ["/_health", "/v1/users/@me", "/nope", "/openapi.json"]) {
          const reply = yield* api.request("GET", path)
          assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff", path)
          assert.strictEqual(reply.headers.get("referrer-policy"), "no-referrer", path)
          assert.match(reply.headers.get("strict-transport-security") ?? "", /^max-age=\d{7,}/, path)
          assert.isNull(reply.headers.get("access-control-allow-origin"), path)
          assert.strictEqual(reply.headers.get("vary"), "Origin", path)
        }
      }))

    it.effect("opens the gateway for bots and the allowed origin, refuses another origin's page", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        assert.strictEqual(yield* upgradeStatus(api.baseUrl), 101)
        assert.strictEqual(yield* upgradeStatus(api.baseUrl, PAGE), 101)
        assert.strictEqual(yield* upgradeStatus(api.baseUrl, OTHER_PAGE), 403)
      }))
  })

  layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("a deployment on plain http", (it) => {
    it.effect("allows PUBLIC_URL's origin by default and sends no HSTS", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const reply = yield* api.request("GET", "/_health", { headers: { origin: "http://localhost:8080" } })
        assert.strictEqual(reply.headers.get("access-control-allow-origin"), "http://localhost:8080")
        assert.strictEqual(reply.headers.get("x-content-type-options"), "nosniff")
        assert.isNull(reply.headers.get("strict-transport-security"))
      }))
  })
})
