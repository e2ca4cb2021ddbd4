import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createGuild } from "../support/Cast.ts"
import { expectError, type Reply, TestApi } from "../support/Api.ts"
import { BOUNDARY, multipartBody, payload, postMultipart } from "../messages/Multipart.ts"

/** A 400 INVALID_FORM_BODY whose one field error names `path`. */
const expectRefused = (reply: Reply, path: string) => {
  expectError(reply, 400, "INVALID_FORM_BODY")
  expect(reply.body).toMatchObject({ errors: [{ path, code: "INVALID_FORMAT" }] })
}

const json = (rawBody: string) => ({ rawBody, headers: { "content-type": "application/json" } })
const form = (rawBody: string) => ({ rawBody, headers: { "content-type": "application/x-www-form-urlencoded" } })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("Text that cannot be stored", (it) => {
  it.effect("refuses U+0000 in a body string with 400 naming the field, at once and with the guild's actors untouched", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const started = Date.now()
      expectRefused(yield* api.request("POST", "/guilds", { token, body: { name: "a\u0000b" } }), "name")
      // The refusal never reached an actor: it did not wait for the actor call timeout.
      assert.isBelow(Date.now() - started, 5_000)
      expectRefused(yield* api.request("PATCH", "/users/@me", { token, body: { bio: "x\u0000y" } }), "bio")
      expectRefused(
        yield* api.request("POST", "/admin/audit-logs/search", { token: `Admin ${api.adminKey}`, body: { query: "\u0000" } }),
        "query"
      )
      const { guildId, channelId } = yield* createGuild(token)
      expectRefused(
        yield* api.request("POST", `/channels/${channelId}/messages`, { token, body: { content: "ok", embeds: [{ title: "\u0000" }] } }),
        "embeds.0.title"
      )
      expectRefused(yield* api.request("PATCH", "/users/@me/settings", { token, body: { "a\u0000": 1 } }), "a\ufffd")
      const guild = yield* api.request("GET", `/guilds/${guildId}`, { token })
      assert.strictEqual(guild.status, 200)
    }))

  it.effect("refuses lone surrogates, and lets a lookalike escape through as the text it is", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      expectRefused(yield* api.request("POST", "/guilds", { token, ...json("{\"name\":\"a\\ud800\"}") }), "name")
      expectRefused(yield* api.request("POST", "/guilds", { token, ...json("{\"name\":\"a\\uDC00b\"}") }), "name")
      const pair = yield* api.request("POST", "/guilds", { token, ...json("{\"name\":\"\\ud83d\\ude00\"}") })
      assert.strictEqual(pair.status, 200, JSON.stringify(pair.body))
      // A backslash followed by "u0000" is six printable characters, not a NUL.
      const lookalike = yield* api.request("POST", "/guilds", { token, body: { name: "a\\u0000b" } })
      assert.strictEqual(lookalike.status, 200, JSON.stringify(lookalike.body))
      expect(lookalike.body).toMatchObject({ name: "a\\u0000b" })
    }))

  it.effect("refuses U+0000 in path parameters and query strings", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      expectRefused(yield* api.request("GET", "/discovery/guilds?query=a%00b", { token }), "query")
      expectRefused(yield* api.request("GET", "/v1/discovery/guilds?limit=5&tag=%00", { token }), "tag")
      expectRefused(yield* api.request("GET", "/invites/a%00b", { token }), "invite_code")
      const fine = yield* api.request("GET", "/discovery/guilds?query=caf%C3%A9", { token })
      assert.strictEqual(fine.status, 200, JSON.stringify(fine.body))
    }))

  it.effect("refuses a URL-encoded U+0000 in the audit-log reason, which would be stored with the write", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { guildId } = yield* createGuild(token)
      const refused = yield* api.request("PATCH", `/guilds/${guildId}`, {
        token,
        body: { name: "renamed" },
        headers: { "x-audit-log-reason": "a%00b" }
      })
      expectError(refused, 400, "INVALID_FORM_BODY")
      expect(refused.body).toMatchObject({ errors: [{ path: "x-audit-log-reason", code: "INVALID_AUDIT_LOG_REASON" }] })
      const kept = yield* api.request("PATCH", `/guilds/${guildId}`, {
        token,
        body: { name: "renamed" },
        headers: { "x-audit-log-reason": "caf%C3%A9" }
      })
      assert.strictEqual(kept.status, 200, JSON.stringify(kept.body))
    }))

  it.effect("refuses U+0000 in form and multipart bodies, and malformed multipart with FAILED_TO_PARSE_MULTIPART_FORM_DATA", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      expectRefused(yield* api.request("POST", "/oauth2/token", form("grant_type=refresh_token&refresh_token=a%00b")), "refresh_token")
      for (const path of ["/oauth2/token", "/oauth2/token/revoke", "/oauth2/introspect"]) {
        const noBoundary = yield* api.request("POST", path, {
          rawBody: "--x\r\ncontent-disposition: form-data; name=\"token\"\r\n\r\nabc\r\n--x--\r\n",
          headers: { "content-type": "multipart/form-data" }
        })
        expectError(noBoundary, 400, "INVALID_FORM_BODY")
        expect(noBoundary.body).toMatchObject({ errors: [{ code: "FAILED_TO_PARSE_MULTIPART_FORM_DATA" }] })
        const body = multipartBody([
          { name: "token", value: "abc" },
          { name: "file", filename: "a\u0000b", data: new Uint8Array([1]) }
        ])
        const nulFilename = yield* Effect.promise(() =>
          fetch(`${api.baseUrl}${path}`, {
            method: "POST",
            headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
            body
          }))
        assert.strictEqual(nulFilename.status, 400, path)
        const nulField = yield* Effect.promise(async () => {
          const response = await fetch(`${api.baseUrl}${path}`, {
            method: "POST",
            headers: { "content-type": `multipart/form-data; boundary=${BOUNDARY}` },
            body: multipartBody([{ name: "grant_type", value: "refresh_token" }, { name: "refresh_token", value: "a\u0000b" }, {
              name: "token",
              value: "a\u0000b"
            }])
          })
          return { status: response.status, headers: response.headers, body: await response.json() }
        })
        expectError(nulField, 400, "INVALID_FORM_BODY")
        expect(nulField.body).toMatchObject({ errors: [{ code: "INVALID_FORMAT" }] })
      }
    }))

  it.effect("refuses U+0000 in a multipart message's payload_json, naming the field inside it, and a multipart message without a boundary", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const { channelId } = yield* createGuild(token)
      expectRefused(yield* postMultipart(token, channelId, [payload({ content: "a\u0000b" })]), "content")
      const noBoundary = yield* api.request("POST", `/channels/${channelId}/messages`, {
        token,
        rawBody: "--x\r\ncontent-disposition: form-data; name=\"payload_json\"\r\n\r\n{}\r\n--x--\r\n",
        headers: { "content-type": "multipart/form-data" }
      })
      expectError(noBoundary, 400, "INVALID_FORM_BODY")
      expect(noBoundary.body).toMatchObject({ errors: [{ code: "FAILED_TO_PARSE_MULTIPART_FORM_DATA" }] })
      const fine = yield* postMultipart(token, channelId, [payload({ content: "ab" })])
      assert.strictEqual(fine.status, 200, JSON.stringify(fine.body))
    }))
})
