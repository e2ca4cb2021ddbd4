import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, type Reply, TestApi } from "../support/Api.ts"
import { CHAT, guildWithChannel, memberWith, sent } from "./Fixtures.ts"

interface Entry {
  readonly id: string
  readonly message_id: string
  readonly status: string
  readonly message: { readonly content: string } | null
}
const entriesOf = (reply: Reply): ReadonlyArray<Entry> => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return reply.body as ReadonlyArray<Entry>
}

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("saved messages over HTTP", (it) => {
  it.effect("save, list newest first, lose access, unsave", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const first = yield* sent(owner.token, channelId, "first")
      const second = yield* sent(owner.token, channelId, "second")
      const gone = yield* sent(owner.token, channelId, "soon deleted")
      const save = (messageId: string) =>
        api.request("POST", "/users/@me/saved-messages", { token: member.token, body: { channel_id: channelId, message_id: messageId } })
      for (const id of [first, second, gone]) assert.strictEqual((yield* save(id)).status, 204)
      const list = (query = "") => api.request("GET", `/users/@me/saved-messages${query}`, { token: member.token })

      expect(entriesOf(yield* list())).toMatchObject([
        { id: gone, channel_id: channelId, message_id: gone, status: "available", message: { id: gone, content: "soon deleted" } },
        { message_id: second, status: "available", message: { content: "second" } },
        { message_id: first, status: "available", message: { content: "first" } }
      ])
      assert.deepStrictEqual(entriesOf(yield* list("?limit=1")).map((e) => e.message_id), [gone])
      // Saving again moves it to the top.
      assert.strictEqual((yield* save(first)).status, 204)
      assert.deepStrictEqual(entriesOf(yield* list()).map((e) => e.message_id), [first, gone, second])

      // A deleted message drops out.
      assert.strictEqual((yield* api.request("DELETE", `/channels/${channelId}/messages/${gone}`, { token: owner.token })).status, 204)
      assert.deepStrictEqual(entriesOf(yield* list()).map((e) => e.message_id), [first, second])

      // Without access to the channel, entries stay but show no message.
      const hide = yield* api.request("PUT", `/channels/${channelId}/permissions/${member.userId}`, {
        token: owner.token,
        body: { type: 1, deny: Permission.VIEW_CHANNEL.toString() }
      })
      assert.strictEqual(hide.status, 204, JSON.stringify(hide.body))
      expect(entriesOf(yield* list())).toEqual([
        { id: first, channel_id: channelId, message_id: first, status: "missing_permissions", message: null },
        { id: second, channel_id: channelId, message_id: second, status: "missing_permissions", message: null }
      ])

      const unsave = yield* api.request("DELETE", `/users/@me/saved-messages/${second}`, { token: member.token })
      assert.strictEqual(unsave.status, 204, JSON.stringify(unsave.body))
      assert.deepStrictEqual(entriesOf(yield* list()).map((e) => e.message_id), [first])
      expectError(yield* api.request("DELETE", `/users/@me/saved-messages/${second}`, { token: member.token }), 404, "UNKNOWN_MESSAGE")
      // Each user's list is their own.
      assert.deepStrictEqual(entriesOf(yield* api.request("GET", "/users/@me/saved-messages", { token: owner.token })), [])
    }))

  it.effect("bad input is refused with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, channelId } = yield* guildWithChannel
      const save = (body: unknown) => api.request("POST", "/users/@me/saved-messages", { token: owner.token, body })
      expectError(yield* save({}), 400, "INVALID_FORM_BODY")
      expectError(yield* save({ channel_id: channelId }), 400, "INVALID_FORM_BODY")
      expectError(yield* save({ channel_id: channelId, message_id: "x1" }), 400, "INVALID_FORM_BODY")
      expectError(yield* save({ channel_id: channelId, message_id: "123" }), 404, "UNKNOWN_MESSAGE")
      expectError(yield* save({ channel_id: "1", message_id: "123" }), 404, "UNKNOWN_CHANNEL")
      for (const query of ["?limit=0", "?limit=101", "?limit=x"]) {
        expectError(yield* api.request("GET", `/users/@me/saved-messages${query}`, { token: owner.token }), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* api.request("DELETE", "/users/@me/saved-messages/abc", { token: owner.token }), 400, "INVALID_FORM_BODY")
    }))

  it.effect("forbidden: only messages the user may read can be saved", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const id = yield* sent(owner.token, channelId, "private")
      const body = { channel_id: channelId, message_id: id }
      const stranger = yield* api.register()
      expectError(yield* api.request("POST", "/users/@me/saved-messages", { token: stranger.token, body }), 403, "MISSING_ACCESS")
      const noHistory = yield* memberWith(guildId, Permission.VIEW_CHANNEL)
      expectError(yield* api.request("POST", "/users/@me/saved-messages", { token: noHistory.token, body }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("GET", "/users/@me/saved-messages"), 401, "UNAUTHORIZED")
      assert.deepStrictEqual(entriesOf(yield* api.request("GET", "/users/@me/saved-messages", { token: stranger.token })), [])
    }))
})
