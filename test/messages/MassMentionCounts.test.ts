import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, guildWithChannel, memberWith, readyReadStates, send, sent } from "./Fixtures.ts"

/** The mention count a new session of `token` is given for the channel (READY's read_state), undefined when not listed. */
const readyCount = (token: string, channelId: string) =>
  Effect.map(readyReadStates(token), (entries) => entries.get(channelId)?.mention_count)

const storedCount = (userId: string, channelId: string) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.map(
      queryAt(api.databaseUrl, "SELECT mention_count FROM read_states WHERE user_id = $1 AND channel_id = $2", [userId, channelId]),
      (rows) => rows.map((r) => r.mention_count)
    ))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("mention counts of role and @everyone mentions", (it) => {
  it.effect("@everyone and the reader's roles count when unread; others' roles, suppressed pings and dismissed ones do not", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const ack = (messageId: string, body: Record<string, unknown> = {}) =>
        Effect.map(
          api.request("POST", `/channels/${channelId}/messages/${messageId}/ack`, { token: member.token, body }),
          (reply) => assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))
        )
      const otherRoleReply = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "others" } })
      assert.strictEqual(otherRoleReply.status, 200, JSON.stringify(otherRoleReply.body))
      const otherRole = field(otherRoleReply.body, "id")

      const first = yield* sent(owner.token, channelId, "hello")
      yield* ack(first)
      assert.strictEqual(yield* readyCount(member.token, channelId), 0)

      const everyone = yield* sent(owner.token, channelId, "@everyone listen up")
      const role = yield* sent(owner.token, channelId, `<@&${member.roleId}> you too`)
      yield* sent(owner.token, channelId, `<@&${otherRole}> not you`)
      // Named and @everyone at once: one mention, counted once (as the direct one it is).
      const both = yield* sent(owner.token, channelId, `@here <@${member.userId}>`)
      const suppressed = yield* send(owner.token, channelId, { content: "@everyone quietly", allowed_mentions: { parse: [] } })
      assert.strictEqual(suppressed.status, 200, JSON.stringify(suppressed.body))
      expect(suppressed.body).toMatchObject({ mention_everyone: false })
      // The member may not ping everyone: their @everyone is no mention, and their own messages never count.
      const own = yield* send(member.token, channelId, { content: "@everyone from me" })
      expect(own.body).toMatchObject({ mention_everyone: false })

      // Stored: the direct mention only; READY adds @everyone and the member's role.
      assert.deepStrictEqual(yield* storedCount(member.userId, channelId), [1])
      assert.strictEqual(yield* readyCount(member.token, channelId), 3)

      // A dismissed mention stops counting.
      const dismissed = yield* api.request("DELETE", `/users/@me/mentions/${everyone}`, { token: member.token })
      assert.strictEqual(dismissed.status, 204, JSON.stringify(dismissed.body))
      assert.strictEqual(yield* readyCount(member.token, channelId), 2)

      // Read up to the role mention: only the direct one after it is left.
      yield* ack(role)
      assert.strictEqual(yield* readyCount(member.token, channelId), 1)
      yield* ack(both)
      assert.strictEqual(yield* readyCount(member.token, channelId), 0)

      // "Mark unread" with the client's own count: the session sees that number, not it plus the mass mentions.
      yield* ack(first, { manual: true, mention_count: 7 })
      assert.strictEqual(yield* readyCount(member.token, channelId), 7)
      // ...and what comes after it adds to it.
      yield* sent(owner.token, channelId, "@everyone again")
      assert.strictEqual(yield* readyCount(member.token, channelId), 8)
    }))

  it.effect("mentions from before the reader joined the guild do not count; a role taken away stops counting", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      yield* sent(owner.token, channelId, "@everyone before anyone joined")
      const member = yield* memberWith(guildId, CHAT)
      // Everyone reads the channel, so taking the role away changes only what the role's mentions count.
      yield* queryAt(api.databaseUrl, "UPDATE guild_roles SET permissions = $1 WHERE id = $2", [CHAT.toString(), guildId])
      yield* reload(guildId)
      // A direct mention gives the newcomer a read state, read from the start of the channel.
      yield* sent(owner.token, channelId, `welcome <@${member.userId}>`)
      assert.strictEqual(yield* readyCount(member.token, channelId), 1)

      yield* sent(owner.token, channelId, `<@&${member.roleId}> meeting`)
      yield* sent(owner.token, channelId, "@everyone meeting")
      assert.strictEqual(yield* readyCount(member.token, channelId), 3)

      // The role is counted as the reader has it now.
      const removed = yield* api.request("DELETE", `/guilds/${guildId}/members/${member.userId}/roles/${member.roleId}`, { token: owner.token })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      assert.strictEqual(yield* readyCount(member.token, channelId), 2)
    }))

  it.effect("bad input and forbidden: acks that would set a count are checked", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, channelId } = yield* guildWithChannel
      const id = yield* sent(owner.token, channelId, "@everyone")
      const ackAs = (token: string | undefined, body: unknown) =>
        api.request("POST", `/channels/${channelId}/messages/${id}/ack`, { ...(token === undefined ? {} : { token }), body })
      expectError(yield* ackAs(owner.token, { mention_count: "lots" }), 400, "INVALID_FORM_BODY")
      expectError(yield* ackAs(owner.token, { mention_count: 1.5 }), 400, "INVALID_FORM_BODY")
      const stranger = yield* api.register()
      expectError(yield* ackAs(stranger.token, { mention_count: 1 }), 403, "MISSING_ACCESS")
      expectError(yield* ackAs(undefined, {}), 401, "UNAUTHORIZED")
      assert.deepStrictEqual(yield* storedCount(stranger.userId, channelId), [])
    }))
})
