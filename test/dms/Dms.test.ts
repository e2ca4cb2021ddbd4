import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { dataOf, type GatewayClient, identified } from "../gateway/Client.ts"
import { fieldCode } from "../messages/Fixtures.ts"
import { ok, request, type User, user } from "./Fixtures.ts"

const friends = (a: User, b: User) =>
  Effect.gen(function*() {
    ok(yield* request("POST", `/users/@me/relationships/${b.userId}`, a.token))
    ok(yield* request("PUT", `/users/@me/relationships/${a.userId}`, b.token, {}))
  })
const openDm = (from: User, to: User) => Effect.map(request("POST", "/users/@me/channels", from.token, { recipient_id: to.userId }), ok)
const send = (token: string, channelId: string, content: string) =>
  request("POST", `/channels/${channelId}/messages`, token, { content })
const idsOf = (body: unknown) => (Array.isArray(body) ? body.map((item) => field(item, "id")) : [])

/** The next dispatch named `type`, skipping others (presences, and the like). */
const nextOf = (client: GatewayClient, type: string) =>
  Effect.gen(function*() {
    for (let i = 0; i < 20; i++) {
      const frame = yield* client.dispatch
      if (frame.t === type) return dataOf(frame)
    }
    return assert.fail(`no ${type} dispatch`)
  })

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("DM channels over HTTP", (it) => {
  it.effect("a DM: opened once, messages both ways, told to the recipient's sessions", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const { client: bobGateway } = yield* identified(bob.token)

      const dm = yield* openDm(alice, bob)
      expect(dm).toMatchObject({ type: 1, last_message_id: null, recipients: [{ id: bob.userId }] })
      const channelId = field(dm, "id")
      expect(yield* openDm(alice, bob)).toMatchObject({ id: channelId })
      assert.deepStrictEqual(idsOf(ok(yield* request("GET", "/users/@me/channels", alice.token))), [channelId])
      // Bob hears of it with its first message.
      assert.deepStrictEqual(idsOf(ok(yield* request("GET", "/users/@me/channels", bob.token))), [])

      const sent = ok(yield* send(alice.token, channelId, `hi <@${bob.userId}>`))
      expect(sent).toMatchObject({ channel_id: channelId, author: { id: alice.userId }, mentions: [{ id: bob.userId }] })
      const messageId = field(sent, "id")
      expect(yield* nextOf(bobGateway, "CHANNEL_CREATE")).toMatchObject({ id: channelId, recipients: [{ id: alice.userId }] })
      expect(yield* nextOf(bobGateway, "MESSAGE_CREATE")).toMatchObject({ id: messageId, content: `hi <@${bob.userId}>` })
      assert.deepStrictEqual(idsOf(ok(yield* request("GET", "/users/@me/channels", bob.token))), [channelId])

      const reply = ok(yield* request("POST", `/channels/${channelId}/messages`, bob.token, {
        content: "hello back",
        message_reference: { message_id: messageId }
      }))
      expect(reply).toMatchObject({ type: 19, referenced_message: { id: messageId } })
      assert.deepStrictEqual(idsOf(ok(yield* request("GET", `/channels/${channelId}/messages`, bob.token))), [field(reply, "id"), messageId])
      expect(ok(yield* request("GET", `/channels/${channelId}/messages/${messageId}`, bob.token))).toMatchObject({ id: messageId })
      expect(ok(yield* request("GET", `/channels/${channelId}`, bob.token))).toMatchObject({ id: channelId, type: 1 })

      expect(ok(yield* request("PATCH", `/channels/${channelId}/messages/${messageId}`, alice.token, { content: "edited" })))
        .toMatchObject({ content: "edited" })
      expect(yield* nextOf(bobGateway, "MESSAGE_UPDATE")).toMatchObject({ id: messageId, content: "edited" })
      expectError(yield* request("PATCH", `/channels/${channelId}/messages/${messageId}`, bob.token, { content: "x" }), 403, "CANNOT_EDIT_OTHER_USER_MESSAGE")
      expectError(yield* request("DELETE", `/channels/${channelId}/messages/${messageId}`, bob.token), 403, "MISSING_PERMISSIONS")
      ok(yield* request("DELETE", `/channels/${channelId}/messages/${messageId}`, alice.token), 204)
      expect(yield* nextOf(bobGateway, "MESSAGE_DELETE")).toEqual({ id: messageId, channel_id: channelId, content: "edited", author_id: alice.userId })

      const preloaded = ok(yield* request("POST", "/users/@me/preload-messages", alice.token, { channels: [channelId, "1"] }))
      expect(preloaded).toMatchObject({ [channelId]: { id: field(reply, "id") }, "1": null })
      const preloadedToo = ok(yield* request("POST", "/users/@me/channels/messages/preload", alice.token, { channels: [channelId] }))
      expect(preloadedToo).toMatchObject({ [channelId]: { id: field(reply, "id") } })

      // Closing takes it off Bob's list only; the next message brings it back.
      ok(yield* request("DELETE", `/channels/${channelId}`, bob.token), 204)
      expect(yield* nextOf(bobGateway, "CHANNEL_DELETE")).toMatchObject({ id: channelId })
      assert.deepStrictEqual(idsOf(ok(yield* request("GET", "/users/@me/channels", bob.token))), [])
      ok(yield* send(alice.token, channelId, "still there?"))
      assert.deepStrictEqual(idsOf(ok(yield* request("GET", "/users/@me/channels", bob.token))), [channelId])

      // READY lists the DM channels.
      const { ready } = yield* identified(bob.token)
      assert.deepStrictEqual(idsOf(ready.private_channels), [channelId])
    }))

  it.effect("bad input is refused with its validation code", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const self = yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: alice.userId })
      expectError(self, 400, "INVALID_FORM_BODY")
      assert.strictEqual(fieldCode(self), "CANNOT_DM_YOURSELF")
      const twice = yield* request("POST", "/users/@me/channels", alice.token, { recipients: [bob.userId, bob.userId] })
      expectError(twice, 400, "INVALID_FORM_BODY")
      assert.strictEqual(fieldCode(twice), "DUPLICATE_RECIPIENTS_NOT_ALLOWED")
      expectError(yield* request("POST", "/users/@me/channels", alice.token, {}), 400, "INVALID_FORM_BODY")
      expectError(yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: "nope" }), 400, "INVALID_FORM_BODY")
      expectError(yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: "4242" }), 404, "UNKNOWN_USER")
      const many = yield* request("POST", "/users/@me/preload-messages", alice.token, {
        channels: Array.from({ length: 101 }, (_, i) => String(i + 1))
      })
      expectError(many, 400, "INVALID_FORM_BODY")
      assert.strictEqual(fieldCode(many), "CANNOT_PRELOAD_MORE_THAN_100_CHANNELS")
      const channelId = field(yield* openDm(alice, bob), "id")
      expectError(yield* send(alice.token, channelId, "  "), 400, "CANNOT_SEND_EMPTY_MESSAGE")
      expectError(yield* request("PATCH", `/channels/${channelId}`, alice.token, { name: "x" }), 403, "CANNOT_EXECUTE_ON_DM")
      expectError(yield* request("GET", "/users/@me/channels", ""), 401, "UNAUTHORIZED")
    }))

  it.effect("only recipients read or write a DM; blocks stop messages and calls", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      const channelId = field(yield* openDm(alice, bob), "id")
      ok(yield* send(alice.token, channelId, "private"))
      expectError(yield* request("GET", `/channels/${channelId}/messages`, carol.token), 403, "MISSING_ACCESS")
      expectError(yield* send(carol.token, channelId, "let me in"), 403, "MISSING_ACCESS")
      expectError(yield* request("GET", `/channels/${channelId}`, carol.token), 403, "MISSING_ACCESS")
      expectError(yield* request("DELETE", `/channels/${channelId}/recipients/${bob.userId}`, carol.token), 403, "MISSING_ACCESS")
      expectError(yield* request("GET", "/channels/4242/messages", alice.token), 404, "UNKNOWN_CHANNEL")

      ok(yield* request("PUT", `/users/@me/relationships/${alice.userId}`, bob.token, { type: 2 }))
      expectError(yield* send(alice.token, channelId, "hello?"), 400, "CANNOT_SEND_MESSAGES_TO_USER")
      expectError(yield* send(bob.token, channelId, "go away"), 400, "CANNOT_SEND_MESSAGES_TO_USER")
      expect(ok(yield* request("GET", `/channels/${channelId}/call`, alice.token))).toEqual({ ringable: false, silent: false })
      expectError(yield* request("POST", `/channels/${channelId}/call/ring`, alice.token, {}), 400, "CANNOT_SEND_MESSAGES_TO_USER")
      // Opening the DM again is still allowed: the block is on what goes through it.
      expect(yield* openDm(alice, bob)).toMatchObject({ id: channelId })
    }))

  it.effect("group DMs: friends only, recipients added and removed, renamed, left", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      const stranger = yield* user
      yield* friends(alice, bob)
      yield* friends(alice, carol)
      const { client: carolGateway } = yield* identified(carol.token)
      const { client: bobGateway } = yield* identified(bob.token)

      expectError(
        yield* request("POST", "/users/@me/channels", alice.token, { recipients: [bob.userId, stranger.userId] }),
        400,
        "GROUP_DM_RECIPIENTS_NOT_ADDABLE"
      )
      const self = yield* request("POST", "/users/@me/channels", alice.token, { recipients: [bob.userId, alice.userId] })
      assert.strictEqual(fieldCode(self), "CANNOT_ADD_YOURSELF_TO_GROUP_DM")

      const group = ok(yield* request("POST", "/users/@me/channels", alice.token, { recipients: [bob.userId] }))
      expect(group).toMatchObject({ type: 3, owner_id: alice.userId, recipients: [{ id: bob.userId }] })
      const channelId = field(group, "id")
      expect(yield* nextOf(bobGateway, "CHANNEL_CREATE")).toMatchObject({ id: channelId, type: 3 })

      ok(yield* request("PUT", `/channels/${channelId}/recipients/${carol.userId}`, alice.token), 204)
      expect(yield* nextOf(carolGateway, "CHANNEL_CREATE")).toMatchObject({ id: channelId, owner_id: alice.userId })
      expect(yield* nextOf(bobGateway, "CHANNEL_RECIPIENT_ADD")).toMatchObject({ channel_id: channelId, user: { id: carol.userId } })
      expectError(yield* request("PUT", `/channels/${channelId}/recipients/${stranger.userId}`, alice.token), 400, "NOT_FRIENDS_WITH_USER")

      const renamed = ok(yield* request("PATCH", `/channels/${channelId}`, bob.token, { type: 3, name: "Trio" }))
      expect(renamed).toMatchObject({ id: channelId, name: "Trio" })
      expect(yield* nextOf(carolGateway, "CHANNEL_UPDATE")).toMatchObject({ id: channelId, name: "Trio" })
      expectError(yield* request("PATCH", `/channels/${channelId}`, bob.token, { owner_id: bob.userId }), 403, "MISSING_PERMISSIONS")

      ok(yield* send(carol.token, channelId, "hi all"))
      expect(yield* nextOf(bobGateway, "MESSAGE_CREATE")).toMatchObject({ channel_id: channelId, content: "hi all" })

      expectError(yield* request("DELETE", `/channels/${channelId}/recipients/${carol.userId}`, bob.token), 403, "MISSING_PERMISSIONS")
      ok(yield* request("DELETE", `/channels/${channelId}/recipients/${carol.userId}`, alice.token), 204)
      expect(yield* nextOf(carolGateway, "CHANNEL_DELETE")).toMatchObject({ id: channelId })
      expect(yield* nextOf(bobGateway, "CHANNEL_RECIPIENT_REMOVE")).toMatchObject({ channel_id: channelId, user: { id: carol.userId } })
      expectError(yield* request("GET", `/channels/${channelId}/messages`, carol.token), 403, "MISSING_ACCESS")

      // The owner leaves: ownership passes to Bob.
      ok(yield* request("DELETE", `/channels/${channelId}`, alice.token), 204)
      expect(yield* nextOf(bobGateway, "CHANNEL_UPDATE")).toMatchObject({ id: channelId, owner_id: bob.userId })
      expect(ok(yield* request("GET", `/channels/${channelId}`, bob.token))).toMatchObject({ owner_id: bob.userId, recipients: [] })
    }))

  it.effect("calls: ring, stop ringing, end, each told to the recipients", () =>
    Effect.gen(function*() {
      const alice = yield* user
      const bob = yield* user
      const carol = yield* user
      const channelId = field(yield* openDm(alice, bob), "id")
      const { client: bobGateway } = yield* identified(bob.token)

      expect(ok(yield* request("GET", `/channels/${channelId}/call`, alice.token))).toEqual({ ringable: true, silent: false })
      expectError(yield* request("POST", `/channels/${channelId}/call/end`, alice.token), 404, "NO_ACTIVE_CALL")
      expectError(yield* request("POST", `/channels/${channelId}/call/ring`, carol.token, {}), 403, "MISSING_ACCESS")

      ok(yield* request("POST", `/channels/${channelId}/call/ring`, alice.token, {}), 204)
      expect(yield* nextOf(bobGateway, "CALL_CREATE")).toMatchObject({ channel_id: channelId, ringing: [bob.userId] })
      ok(yield* request("POST", `/channels/${channelId}/call/stop-ringing`, bob.token, {}), 204)
      expect(yield* nextOf(bobGateway, "CALL_UPDATE")).toMatchObject({ channel_id: channelId, ringing: [] })
      ok(yield* request("POST", `/channels/${channelId}/call/end`, bob.token), 204)
      expect(yield* nextOf(bobGateway, "CALL_DELETE")).toEqual({ channel_id: channelId })
      expectError(yield* request("POST", `/channels/${channelId}/call/stop-ringing`, bob.token, {}), 404, "NO_ACTIVE_CALL")
      expectError(yield* request("GET", "/channels/4242/call", alice.token), 404, "UNKNOWN_CHANNEL")
    }))
})
