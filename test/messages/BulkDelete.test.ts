import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf, type GatewayClient, identified } from "../gateway/Client.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, fieldCode, guildWithChannel, idAgo, idsOf, memberWith, sent } from "./Fixtures.ts"

/** The next dispatch of type `t`, skipping others. */
const nextOf = (client: GatewayClient, t: string): Effect.Effect<Record<string, unknown>> =>
  Effect.flatMap(client.dispatch, (f) => (f.t === t ? Effect.succeed(dataOf(f)) : nextOf(client, t)))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("bulk deletion and bans that delete messages", (it) => {
  it.effect("bulk-delete: the window, Postgres and one MESSAGE_DELETE_BULK; bad input; forbidden", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const chatter = yield* memberWith(guildId, CHAT)
      const { client } = yield* identified(owner.token)
      const ids = [yield* sent(chatter.token, channelId, "a"), yield* sent(chatter.token, channelId, "b")]
      const kept = yield* sent(owner.token, channelId, "kept")
      const path = `/channels/${channelId}/messages/bulk-delete`

      expectError(yield* api.request("POST", path, { token: chatter.token, body: { messages: ids } }), 403, "MISSING_PERMISSIONS")
      const bad = (body: unknown) => api.request("POST", path, { token: owner.token, body })
      const tooMany = yield* bad({ messages: Array.from({ length: 101 }, (_, i) => String(i + 1)) })
      assert.strictEqual(fieldCode(tooMany), "CANNOT_DELETE_MORE_THAN_100_MESSAGES", JSON.stringify(tooMany.body))
      expectError(yield* bad({ messages: [ids[0]] }), 400, "INVALID_FORM_BODY")
      expectError(yield* bad({ messages: [ids[0], idAgo(15 * 86_400_000)] }), 400, "INVALID_FORM_BODY")
      expectError(yield* bad({ messages: ["x", "y"] }), 400, "INVALID_FORM_BODY")

      const done = yield* api.request("POST", path, { token: owner.token, body: { messages: ids } })
      assert.strictEqual(done.status, 204, JSON.stringify(done.body))
      const event = yield* nextOf(client, "MESSAGE_DELETE_BULK")
      expect(event).toMatchObject({ channel_id: channelId, guild_id: guildId })
      assert.deepStrictEqual([...(event.ids as ReadonlyArray<string>)].sort(), [...ids].sort())
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [kept])
      const left = yield* queryAt(api.databaseUrl, "SELECT id::text AS id FROM messages WHERE channel_id = $1", [channelId])
      assert.deepStrictEqual(left, [{ id: kept }])
    }))

  it.effect("a ban with delete_message_days deletes the last N days of the user's messages, window and Postgres", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const second = yield* api.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { name: "second", type: 0 } })
      assert.strictEqual(second.status, 200, JSON.stringify(second.body))
      const otherChannel = field(second.body, "id")
      const spammer = yield* memberWith(guildId, CHAT)
      const bystander = yield* memberWith(guildId, CHAT)
      const { client } = yield* identified(owner.token)

      // Older ones only Postgres has (written behind the actor's back): one inside the day, one outside it.
      const recentStored = idAgo(3600_000, 7n)
      const oldStored = idAgo(3 * 86_400_000, 7n)
      for (const id of [recentStored, oldStored]) {
        yield* queryAt(api.databaseUrl, "INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at) VALUES ($1, $2, $3, $4, 'stored', now())", [
          otherChannel,
          id,
          guildId,
          spammer.userId
        ])
      }
      const spamHere = yield* sent(spammer.token, channelId, "spam 1")
      const spamThere = yield* sent(spammer.token, otherChannel, "spam 2")
      const innocent = yield* sent(bystander.token, channelId, "innocent")

      const banned = yield* api.request("PUT", `/guilds/${guildId}/bans/${spammer.userId}`, {
        token: owner.token,
        body: { delete_message_days: 1 }
      })
      assert.strictEqual(banned.status, 204, JSON.stringify(banned.body))
      const events = new Map<string, ReadonlyArray<string>>()
      while (events.size < 2) {
        const event = yield* nextOf(client, "MESSAGE_DELETE_BULK")
        events.set(String(event.channel_id), [...(event.ids as ReadonlyArray<string>)].sort())
      }
      assert.deepStrictEqual(events.get(channelId), [spamHere])
      assert.deepStrictEqual(events.get(otherChannel), [recentStored, spamThere].sort())

      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [innocent])
      const rest = yield* queryAt(api.databaseUrl, "SELECT id::text AS id FROM messages WHERE author_id = $1", [spammer.userId])
      assert.deepStrictEqual(rest, [{ id: oldStored }])

      // Without delete_message_days nothing of theirs goes.
      const kept = yield* sent(bystander.token, channelId, "still here")
      const plain = yield* api.request("PUT", `/guilds/${guildId}/bans/${bystander.userId}`, { token: owner.token, body: {} })
      assert.strictEqual(plain.status, 204, JSON.stringify(plain.body))
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [kept, innocent])

      // Who may not ban deletes nothing.
      const other = yield* memberWith(guildId, CHAT)
      const mine = yield* sent(other.token, channelId, "mine")
      expectError(
        yield* api.request("PUT", `/guilds/${guildId}/bans/${owner.userId}`, { token: other.token, body: { delete_message_days: 7 } }),
        403,
        "MISSING_PERMISSIONS"
      )
      expectError(
        yield* api.request("PUT", `/guilds/${guildId}/bans/${other.userId}`, { token: owner.token, body: { delete_message_days: 8 } }),
        400,
        "INVALID_FORM_BODY"
      )
      const still = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE id = $1", [mine])
      assert.strictEqual(still[0]?.n, 1)
    }))
})
