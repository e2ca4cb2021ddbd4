import { assert, describe, expect, it, layer } from "@effect/vitest"
import { ConfigProvider, Effect, Option } from "effect"
import { hostName } from "../../src/connections/Identifiers.ts"
import { addressPolicy } from "../../src/media/RemoteFetch.ts"
import { parseAddress } from "../../src/platform/IpAddress.ts"
import { settingsConfig } from "../../src/platform/Config.ts"
import { accessToken, createApplication } from "../oauth2/Fixtures.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { connect, connectionsApi, list, newDomain, request, start, verify } from "./Support.ts"

describe("connection identifiers", () => {
  it("are public host names in lower-case ASCII", () => {
    assert.strictEqual(hostName("Example.COM."), "example.com")
    assert.strictEqual(hostName("bücher.example"), "xn--bcher-kva.example")
    assert.strictEqual(hostName("alice.example.social"), "alice.example.social")
    for (const bad of ["localhost", "127.0.0.1", "::1", "1.2.3.4.5", "exa mple.com", "-bad.com", "bad-.com", "a..b", "", "a/b.com", "x@y.com",
      `${"a".repeat(64)}.com`, `${"a.".repeat(130)}com`]) {
      assert.isUndefined(hostName(bad), bad)
    }
  })
})

describe("instances derived from a handle", () => {
  it("are asked only at public addresses (RemoteFetch's policy, internal addresses not allowed)", () => {
    const permits = addressPolicy({ allowPrivate: false, allowedNetworks: [] })
    const isPublicAddress = (text: string) => {
      const address = parseAddress(text)
      return address !== undefined && permits(address)
    }
    for (const address of ["93.184.216.34", "2606:2800:220:1::1", "8.8.8.8"]) assert.isTrue(isPublicAddress(address), address)
    for (const address of ["127.0.0.1", "10.1.2.3", "172.20.0.1", "192.168.1.1", "169.254.169.254", "100.64.0.1", "::1", "::", "fd00::1",
      "fe80::1", "::ffff:127.0.0.1", "0.0.0.0", "not an address"]) {
      assert.isFalse(isPublicAddress(address), address)
    }
  })
})

describe("SOCIAL_INSTANCE_URL", () => {
  const read = (env: Record<string, string>) => settingsConfig.parse(ConfigProvider.fromUnknown(env))

  it.effect("is an http(s) base URL, kept without its trailing slash; anything else stops the start naming it", () =>
    Effect.gen(function*() {
      assert.isTrue(Option.isNone((yield* read({})).socialInstanceUrl))
      assert.deepStrictEqual((yield* read({ SOCIAL_INSTANCE_URL: "https://view.example/" })).socialInstanceUrl, Option.some("https://view.example"))
      assert.deepStrictEqual((yield* read({ SOCIAL_INSTANCE_URL: "http://127.0.0.1:9/base" })).socialInstanceUrl, Option.some("http://127.0.0.1:9/base"))
      for (const bad of ["view.example", "ftp://view.example", "https://view.example/?x=1"]) {
        assert.include(String(yield* Effect.flip(read({ SOCIAL_INSTANCE_URL: bad }))), "SOCIAL_INSTANCE_URL")
      }
    }))
})

layer(connectionsApi, { timeout: 180_000, excludeTestServices: true })("connection refusals over HTTP", (it) => {
  it.effect("bad types, identifiers and fields are 400 with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const invalidBody = (reply: { status: number; body: unknown }, path: string) => {
        expectError(reply, 400, "INVALID_FORM_BODY")
        expect(reply.body).toMatchObject({ errors: [{ path }] })
      }
      invalidBody(yield* start(me.token, "bsky", "alice.example.social"), "type")
      invalidBody(yield* start(me.token, "domain", ""), "identifier")
      invalidBody(yield* start(me.token, "domain", "a\u0000b.com"), "identifier")
      invalidBody(yield* start(me.token, "domain", "x".repeat(254)), "identifier")
      invalidBody(yield* request("POST", "/users/@me/connections", me.token, { type: "domain", identifier: 5 }), "identifier")
      invalidBody(yield* start(me.token, "domain", newDomain(), { visibility_flags: 8 }), "visibility_flags")
      invalidBody(yield* start(me.token, "domain", newDomain(), { visibility_flags: "1" }), "visibility_flags")
      assert.strictEqual((yield* request("POST", "/users/@me/connections", me.token, {})).status, 400)
      for (const identifier of ["192.168.1.1", "localhost", "exa mple.com", "-bad-.com", "[::1]"]) {
        expectError(yield* start(me.token, "domain", identifier), 400, "CONNECTION_INVALID_IDENTIFIER")
      }
      expectError(yield* start(me.token, "social", "@alice"), 400, "CONNECTION_INVALID_IDENTIFIER")
      expectError(yield* request("POST", "/users/@me/connections/social/authorize", me.token, { handle: "not a handle" }), 400, "CONNECTION_INVALID_IDENTIFIER")
      invalidBody(yield* request("POST", "/users/@me/connections/social/authorize", me.token, { handle: 7 }), "handle")

      expectError(yield* verify(me.token, "made-up"), 400, "CONNECTION_INITIATION_TOKEN_INVALID")
      invalidBody(yield* verify(me.token, ""), "initiation_token")
      invalidBody(yield* request("POST", "/users/@me/connections/verify", me.token, { initiation_token: ["x"] }), "initiation_token")
      // Another user's initiation token is no token of this user's.
      const other = yield* api.register()
      const theirs = yield* start(other.token, "domain", newDomain())
      expectError(yield* verify(me.token, field(theirs.body, "initiation_token")), 400, "CONNECTION_INITIATION_TOKEN_INVALID")

      const mine = yield* connect(me.token, "domain", newDomain())
      expectError(yield* request("POST", `/users/@me/connections/bsky/${mine.id}/verify`, me.token), 400, "CONNECTION_INVALID_TYPE")
      expectError(yield* request("PATCH", `/users/@me/connections/bsky/${mine.id}`, me.token, {}), 400, "CONNECTION_INVALID_TYPE")
      expectError(yield* request("DELETE", `/users/@me/connections/bsky/${mine.id}`, me.token), 400, "CONNECTION_INVALID_TYPE")
      assert.strictEqual((yield* request("DELETE", "/users/@me/connections/domain/abc", me.token)).status, 400)
      invalidBody(yield* request("PATCH", `/users/@me/connections/domain/${mine.id}`, me.token, { sort_order: -1 }), "sort_order")
      invalidBody(yield* request("PATCH", `/users/@me/connections/domain/${mine.id}`, me.token, { visibility_flags: 1.5 }), "visibility_flags")
      assert.strictEqual((yield* request("PATCH", "/users/@me/connections/reorder", me.token, { connection_ids: [] })).status, 400)
      assert.strictEqual((yield* request("PATCH", "/users/@me/connections/reorder", me.token, { connection_ids: [mine.id, mine.id] })).status, 400)
      assert.strictEqual((yield* request("PATCH", "/users/@me/connections/reorder", me.token, { connection_ids: ["x"] })).status, 400)
      expectError(yield* request("PATCH", "/users/@me/connections/reorder", me.token, { connection_ids: ["1"] }), 404, "CONNECTION_NOT_FOUND")
      // Nothing changed along the way.
      expect((yield* list(me.token)).body).toEqual([mine.body])
    }))

  it.effect("anonymous callers are 401; bots are 403; an access token lists only with the connections scope", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const developer = yield* api.register()
      const routes = [
        ["GET", "/users/@me/connections", undefined],
        ["POST", "/users/@me/connections", { type: "domain", identifier: newDomain() }],
        ["POST", "/users/@me/connections/verify", { initiation_token: "x" }],
        ["POST", "/users/@me/connections/social/authorize", { handle: "alice.example.social" }],
        ["PATCH", "/users/@me/connections/reorder", { connection_ids: ["1"] }],
        ["POST", "/users/@me/connections/domain/1/verify", undefined],
        ["PATCH", "/users/@me/connections/domain/1", { sort_order: 1 }],
        ["DELETE", "/users/@me/connections/domain/1", undefined]
      ] as const
      const bot = (yield* createApplication(developer.token)).botToken
      for (const [method, path, body] of routes) {
        expectError(yield* request(method, path, undefined, body), 401, "UNAUTHORIZED")
        expectError(yield* request(method, path, bot, body), 403, "ACCESS_DENIED")
      }

      const mine = yield* connect(me.token, "domain", newDomain())
      const reader = yield* accessToken(developer.token, me.token, "identify connections")
      const listed = yield* list(reader)
      assert.strictEqual(listed.status, 200, JSON.stringify(listed.body))
      expect(listed.body).toEqual([mine.body])
      // The token reads; it does not change anything.
      expectError(yield* request("DELETE", `/users/@me/connections/domain/${mine.id}`, reader), 403, "ACCESS_DENIED")
      const identifyOnly = yield* accessToken(developer.token, me.token, "identify")
      const refused = yield* list(identifyOnly)
      expectError(refused, 403, "MISSING_OAUTH_SCOPE")
      expect(refused.body).toMatchObject({ required_scope: "connections" })
    }))
})
