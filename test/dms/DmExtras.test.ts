import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf, type GatewayClient, identified, nextOfType } from "../gateway/Client.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { ok, request, type User, user } from "./Fixtures.ts"

const next = (client: GatewayClient, type: string) => Effect.map(nextOfType(client, type), dataOf)

/** Alice's DM with Bob, with one message from each (Bob's sent first). */
const conversation = Effect.gen(function*() {
  const alice = yield* user
  const bob = yield* user
  const dm = ok(yield* request("POST", "/users/@me/channels", alice.token, { recipient_id: bob.userId }))
  const channelId = field(dm, "id")
  const fromAlice = field(ok(yield* request("POST", `/channels/${channelId}/messages`, alice.token, { content: "hi" })), "id")
  const fromBob = field(ok(yield* request("POST", `/channels/${channelId}/messages`, bob.token, { content: "hello" })), "id")
  return { alice, bob, channelId, fromAlice, fromBob }
})

const outsiderRefused = (outsider: User, calls: ReadonlyArray<readonly [string, string, unknown?]>) =>
  Effect.forEach(calls, ([method, path, body]) =>
    Effect.map(request(method, path, outsider.token, body), (reply) => expectError(reply, 403, "MISSING_ACCESS")), { discard: true })

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("typing, pins and acks in DMs", (it) => {
  it.effect("typing reaches the recipients; outsiders and blocked users are refused", () =>
    Effect.gen(function*() {
      const { alice, bob, channelId } = yield* conversation
      const { client: bobGateway } = yield* identified(bob.token)

      ok(yield* request("POST", `/channels/${channelId}/typing`, alice.token), 204)
      const typing = yield* next(bobGateway, "TYPING_START")
      expect(typing).toMatchObject({ channel_id: channelId, user_id: alice.userId })
      assert.isNumber(typing.timestamp)
      assert.isUndefined(typing.guild_id)

      const carol = yield* user
      yield* outsiderRefused(carol, [["POST", `/channels/${channelId}/typing`]])
      expectError(yield* request("POST", "/channels/not-a-channel/typing", alice.token), 400, "INVALID_FORM_BODY")

      ok(yield* request("PUT", `/users/@me/relationships/${alice.userId}`, bob.token, { type: 2 }))
      expectError(yield* request("POST", `/channels/${channelId}/typing`, alice.token), 400, "CANNOT_SEND_MESSAGES_TO_USER")
    }))

  it.effect("pins: any recipient pins and unpins, both hear it, the list shows it; outsiders are refused", () =>
    Effect.gen(function*() {
      const { alice, bob, channelId, fromBob } = yield* conversation
      const { client: bobGateway } = yield* identified(bob.token)

      ok(yield* request("PUT", `/channels/${channelId}/pins/${fromBob}`, alice.token), 204)
      expect(yield* next(bobGateway, "MESSAGE_UPDATE")).toMatchObject({ id: fromBob, pinned: true })
      const pinsUpdate = yield* next(bobGateway, "CHANNEL_PINS_UPDATE")
      expect(pinsUpdate).toMatchObject({ channel_id: channelId })
      assert.isString(pinsUpdate.last_pin_timestamp)
      // Pinning it again changes nothing.
      ok(yield* request("PUT", `/channels/${channelId}/pins/${fromBob}`, bob.token), 204)

      const listed = ok(yield* request("GET", `/channels/${channelId}/messages/pins`, bob.token))
      expect(listed).toMatchObject({ items: [{ message: { id: fromBob, pinned: true }, pinned_at: pinsUpdate.last_pin_timestamp }], has_more: false })
      expect(ok(yield* request("GET", `/channels/${channelId}/messages/${fromBob}`, alice.token))).toMatchObject({ pinned: true })
      ok(yield* request("POST", `/channels/${channelId}/pins/ack`, bob.token), 204)

      const carol = yield* user
      yield* outsiderRefused(carol, [
        ["GET", `/channels/${channelId}/messages/pins`],
        ["PUT", `/channels/${channelId}/pins/${fromBob}`],
        ["DELETE", `/channels/${channelId}/pins/${fromBob}`],
        ["POST", `/channels/${channelId}/pins/ack`]
      ])
      expectError(yield* request("PUT", `/channels/${channelId}/pins/1234567890123`, alice.token), 404, "UNKNOWN_MESSAGE")
      expectError(yield* request("GET", `/channels/${channelId}/messages/pins?limit=0`, alice.token), 400, "INVALID_FORM_BODY")

      ok(yield* request("DELETE", `/channels/${channelId}/pins/${fromBob}`, bob.token), 204)
      expect(yield* next(bobGateway, "MESSAGE_UPDATE")).toMatchObject({ id: fromBob, pinned: false })
      expect(yield* next(bobGateway, "CHANNEL_PINS_UPDATE")).toEqual({ channel_id: channelId, last_pin_timestamp: null })
      expect(ok(yield* request("GET", `/channels/${channelId}/messages/pins`, alice.token))).toEqual({ items: [], has_more: false })
    }))

  it.effect("ack: stored as the reader's read state and told to their own sessions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { alice, bob, channelId, fromAlice, fromBob } = yield* conversation
      const { client: bobGateway } = yield* identified(bob.token)
      const { client: aliceGateway } = yield* identified(alice.token)

      ok(yield* request("POST", `/channels/${channelId}/messages/${fromBob}/ack`, bob.token, { manual: true, mention_count: 2 }), 204)
      expect(yield* next(bobGateway, "MESSAGE_ACK")).toEqual({
        channel_id: channelId,
        message_id: fromBob,
        user_id: bob.userId,
        manual: true,
        mention_count: 2
      })
      const stored = yield* queryAt(
        api.databaseUrl,
        "SELECT last_message_id::text AS last, mention_count FROM read_states WHERE user_id = $1 AND channel_id = $2",
        [bob.userId, channelId]
      )
      assert.deepStrictEqual(stored, [{ last: fromBob, mention_count: 2 }])

      // Alice's sessions hear her own ack, not Bob's: hers is the next MESSAGE_ACK they get.
      ok(yield* request("POST", `/channels/${channelId}/messages/${fromAlice}/ack`, alice.token, {}), 204)
      expect(yield* next(aliceGateway, "MESSAGE_ACK")).toMatchObject({ message_id: fromAlice, user_id: alice.userId })

      const carol = yield* user
      yield* outsiderRefused(carol, [["POST", `/channels/${channelId}/messages/${fromBob}/ack`, {}]])
      expectError(
        yield* request("POST", `/channels/${channelId}/messages/${fromBob}/ack`, bob.token, { mention_count: "many" }),
        400,
        "INVALID_FORM_BODY"
      )
    }))
})
