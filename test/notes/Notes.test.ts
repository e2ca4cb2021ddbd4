import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, TestApi } from "../support/Api.ts"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("user notes over HTTP", (it) => {
  const put = (token: string, targetId: string, body?: unknown) =>
    Effect.flatMap(TestApi, (api) => api.request("PUT", `/users/@me/notes/${targetId}`, { token, body }))
  const get = (token: string, targetId: string) =>
    Effect.flatMap(TestApi, (api) => api.request("GET", `/users/@me/notes/${targetId}`, { token }))
  const list = (token: string) => Effect.flatMap(TestApi, (api) => api.request("GET", "/users/@me/notes", { token }))

  it.effect("sets, reads, lists and deletes notes, each user seeing only their own", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const a = yield* api.register()
      const b = yield* api.register()
      expect((yield* list(me.token)).body).toEqual({})
      const none = yield* get(me.token, a.userId)
      expectError(none, 404, "UNKNOWN_USER")

      const set = yield* put(me.token, a.userId, { note: "met at the conference" })
      assert.strictEqual(set.status, 204, JSON.stringify(set.body))
      assert.strictEqual((yield* put(me.token, b.userId, { note: "ü".repeat(256) })).status, 204)
      assert.strictEqual((yield* put(me.token, me.userId, { note: "myself" })).status, 204)
      expect((yield* get(me.token, a.userId)).body).toEqual({ note: "met at the conference" })
      expect((yield* list(me.token)).body).toEqual({ [a.userId]: "met at the conference", [b.userId]: "ü".repeat(256), [me.userId]: "myself" })

      assert.strictEqual((yield* put(me.token, a.userId, { note: "changed my mind" })).status, 204)
      expect((yield* get(me.token, a.userId)).body).toEqual({ note: "changed my mind" })
      // Someone else's notes are theirs alone.
      expect((yield* list(a.token)).body).toEqual({})
      assert.strictEqual((yield* get(a.token, a.userId)).status, 404)

      // An empty note, null, or no note at all deletes it.
      assert.strictEqual((yield* put(me.token, a.userId, { note: "" })).status, 204)
      assert.strictEqual((yield* put(me.token, b.userId, { note: null })).status, 204)
      assert.strictEqual((yield* put(me.token, me.userId, {})).status, 204)
      expect((yield* list(me.token)).body).toEqual({})
      assert.strictEqual((yield* get(me.token, a.userId)).status, 404)
    }))

  it.effect("refuses unknown users, bad input and anonymous callers", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const other = yield* api.register()
      const unknown = yield* put(me.token, "1", { note: "ghost" })
      expectError(unknown, 404, "UNKNOWN_USER")

      const long = yield* put(me.token, other.userId, { note: "x".repeat(257) })
      assert.strictEqual(long.status, 400)
      expect(long.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "note", code: "STRING_LENGTH_INVALID" }] })
      assert.strictEqual((yield* put(me.token, other.userId, { note: 42 })).status, 400)
      const badId = yield* put(me.token, "someone", { note: "x" })
      assert.strictEqual(badId.status, 400)
      expect(badId.body).toMatchObject({ errors: [{ code: "INVALID_SNOWFLAKE_FORMAT" }] })
      assert.strictEqual((yield* get(me.token, "someone")).status, 400)

      assert.strictEqual((yield* api.request("GET", "/users/@me/notes")).status, 401)
      assert.strictEqual((yield* api.request("GET", `/users/@me/notes/${other.userId}`)).status, 401)
      assert.strictEqual((yield* api.request("PUT", `/users/@me/notes/${other.userId}`, { body: { note: "x" } })).status, 401)
      expect((yield* api.request("GET", "/users/@me/notes", { token: me.token })).body).toEqual({})
    }))
})
