import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { type GatewayClient, identified } from "../gateway/Client.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, guildWithChannel, idsOf, memberWith, newChannel, sent } from "./Fixtures.ts"

/** The next dispatch of `type`, skipping the others (GUILD_CREATE, MESSAGE_CREATE, ...). */
const nextOfType = (client: GatewayClient, type: string): Effect.Effect<Record<string, unknown>> =>
  Effect.flatMap(client.dispatch, (frame) =>
    frame.t === type ? Effect.succeed(frame.d as Record<string, unknown>) : nextOfType(client, type))

const readState = (userId: string, channelId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(api.databaseUrl, "SELECT last_message_id::text AS last, mention_count AS mentions FROM read_states WHERE user_id = $1 AND channel_id = $2", [
      userId,
      channelId
    ]))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("read states and mentions over HTTP", (it) => {
  it.effect("acks keep read states and mention counts, and MESSAGE_ACK reaches only the user's own sessions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const other = yield* newChannel(owner.token, guildId, { name: "other" })
      const member = yield* memberWith(guildId, CHAT)
      const memberSide = (yield* identified(member.token)).client
      const ownerSide = (yield* identified(owner.token)).client

      const first = yield* sent(owner.token, channelId, `hi <@${member.userId}>`)
      const second = yield* sent(owner.token, channelId, `again <@${member.userId}>`)
      const elsewhere = yield* sent(owner.token, other, "no mention")
      // Each direct mention counted as the message was stored.
      assert.deepStrictEqual(yield* readState(member.userId, channelId), [{ last: "0", mentions: 2 }])

      const mentions = yield* api.request("GET", "/users/@me/mentions", { token: member.token })
      assert.deepStrictEqual(idsOf(mentions), [second, first])

      // Read up to the first: one mention left unread.
      const ack = yield* api.request("POST", "/read-states/ack-bulk", {
        token: member.token,
        body: { read_states: [{ channel_id: channelId, message_id: first }, { channel_id: other, message_id: elsewhere }] }
      })
      assert.strictEqual(ack.status, 204, JSON.stringify(ack.body))
      assert.deepStrictEqual(yield* readState(member.userId, channelId), [{ last: first, mentions: 1 }])
      assert.deepStrictEqual(yield* readState(member.userId, other), [{ last: elsewhere, mentions: 0 }])
      const acks = [yield* nextOfType(memberSide, "MESSAGE_ACK"), yield* nextOfType(memberSide, "MESSAGE_ACK")]
      expect(acks.map((d) => [d.channel_id, d.message_id]).sort()).toEqual([[channelId, first], [other, elsewhere]].sort())

      // The single ack, manual with the client's own count ("mark unread").
      const manual = yield* api.request("POST", `/channels/${channelId}/messages/${second}/ack`, {
        token: member.token,
        body: { mention_count: 5, manual: true }
      })
      assert.strictEqual(manual.status, 204, JSON.stringify(manual.body))
      assert.deepStrictEqual(yield* readState(member.userId, channelId), [{ last: second, mentions: 5 }])
      expect(yield* nextOfType(memberSide, "MESSAGE_ACK")).toMatchObject({ channel_id: channelId, message_id: second, manual: true, mention_count: 5 })

      // The owner's session heard none of the member's acks: everything before the owner's next message says so.
      const marker = yield* sent(owner.token, channelId, "after the acks")
      const ownerSees: Array<string> = []
      for (;;) {
        const frame = yield* ownerSide.dispatch
        ownerSees.push(frame.t ?? "")
        if (frame.t === "MESSAGE_CREATE" && (frame.d as { id?: unknown }).id === marker) break
      }
      assert.notInclude(ownerSees, "MESSAGE_ACK")

      // A new session starts from them: READY's read_state lists each channel read, with its count.
      const { ready } = yield* identified(member.token)
      expect(ready.read_state).toMatchObject({ partial: false })
      expect((ready.read_state as { entries: unknown }).entries).toEqual(expect.arrayContaining([
        { id: channelId, last_message_id: second, mention_count: 5, last_pin_timestamp: null },
        expect.objectContaining({ id: other, last_message_id: elsewhere })
      ]))
    }))

  it.effect("mentions: roles and @everyone flags, guild filter, paging, visibility and dismissal", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const secret = yield* newChannel(owner.token, guildId, {
        name: "secret",
        permission_overwrites: [{ id: member.roleId, type: 0, deny: String(Permission.VIEW_CHANNEL) }]
      })
      const direct = yield* sent(owner.token, channelId, `<@${member.userId}>`)
      const role = yield* sent(owner.token, channelId, `<@&${member.roleId}>`)
      const everyone = yield* sent(owner.token, channelId, "@everyone listen")
      yield* sent(owner.token, secret, `hidden <@${member.userId}>`)
      yield* sent(member.token, channelId, `talking to myself <@${member.userId}>`)
      const otherGuild = yield* guildWithChannel
      // @everyone in a guild the member is not in is not theirs.
      yield* sent(otherGuild.owner.token, otherGuild.channelId, "@everyone")

      const list = (query: string) => api.request("GET", `/users/@me/mentions${query}`, { token: member.token })
      assert.deepStrictEqual(idsOf(yield* list("")), [everyone, role, direct])
      assert.deepStrictEqual(idsOf(yield* list("?roles=false")), [everyone, direct])
      assert.deepStrictEqual(idsOf(yield* list("?everyone=false&roles=false")), [direct])
      assert.deepStrictEqual(idsOf(yield* list(`?limit=1`)), [everyone])
      assert.deepStrictEqual(idsOf(yield* list(`?limit=2&before=${role}`)), [direct])
      assert.deepStrictEqual(idsOf(yield* list(`?guilds=${guildId}`)), [everyone, role, direct])
      assert.deepStrictEqual(idsOf(yield* list(`?guilds=${otherGuild.guildId}`)), [])
      assert.deepStrictEqual(idsOf(yield* list("?guilds=false")), [])

      const dismissed = yield* api.request("DELETE", `/users/@me/mentions/${direct}`, { token: member.token })
      assert.strictEqual(dismissed.status, 204, JSON.stringify(dismissed.body))
      assert.deepStrictEqual(idsOf(yield* list("")), [everyone, role])
      // The unread count follows: the one direct mention is gone.
      assert.deepStrictEqual(yield* readState(member.userId, channelId), [{ last: "0", mentions: 0 }])
      // Another user's mention, or a message pinging nobody, is not theirs to dismiss.
      expectError(yield* api.request("DELETE", `/users/@me/mentions/${everyone}`, { token: otherGuild.owner.token }), 404, "UNKNOWN_MESSAGE")
      expectError(yield* api.request("DELETE", `/users/@me/mentions/1`, { token: member.token }), 404, "UNKNOWN_MESSAGE")
    }))

  it.effect("bad input is refused with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, channelId } = yield* guildWithChannel
      const ackBulk = (body: unknown) => api.request("POST", "/read-states/ack-bulk", { token: owner.token, body })
      expectError(yield* ackBulk({ read_states: [] }), 400, "INVALID_FORM_BODY")
      expectError(yield* ackBulk({}), 400, "INVALID_FORM_BODY")
      expectError(yield* ackBulk({ read_states: [{ channel_id: "abc", message_id: "1" }] }), 400, "INVALID_FORM_BODY")
      const many = Array.from({ length: 101 }, () => ({ channel_id: channelId, message_id: "1" }))
      expectError(yield* ackBulk({ read_states: many }), 400, "INVALID_FORM_BODY")
      expectError(yield* ackBulk({ read_states: [{ channel_id: "1", message_id: "1" }] }), 404, "UNKNOWN_CHANNEL")
      for (const query of ["?limit=0", "?limit=101", "?roles=maybe", "?guilds=abc", "?before=x"]) {
        expectError(yield* api.request("GET", `/users/@me/mentions${query}`, { token: owner.token }), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* api.request("DELETE", "/users/@me/mentions/abc", { token: owner.token }), 400, "INVALID_FORM_BODY")
    }))

  it.effect("forbidden: channels the user cannot see, and no token", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const id = yield* sent(owner.token, channelId, "x")
      const stranger = yield* api.register()
      const body = { read_states: [{ channel_id: channelId, message_id: id }] }
      expectError(yield* api.request("POST", "/read-states/ack-bulk", { token: stranger.token, body }), 403, "MISSING_ACCESS")
      const blind = yield* memberWith(guildId, Permission.SEND_MESSAGES)
      expectError(yield* api.request("POST", "/read-states/ack-bulk", { token: blind.token, body }), 403, "MISSING_ACCESS")
      expectError(yield* api.request("POST", `/channels/${channelId}/messages/${id}/ack`, { token: blind.token, body: {} }), 403, "MISSING_ACCESS")
      assert.deepStrictEqual(yield* readState(blind.userId, channelId), [])
      expectError(yield* api.request("POST", "/read-states/ack-bulk", { body }), 401, "UNAUTHORIZED")
      expectError(yield* api.request("GET", "/users/@me/mentions"), 401, "UNAUTHORIZED")
    }))
})
