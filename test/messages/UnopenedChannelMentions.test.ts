import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, guildWithChannel, memberWith, newChannel, readyReadStates, send, sent } from "./Fixtures.ts"

const storedRows = (userId: string, channelId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(api.databaseUrl, "SELECT 1 FROM read_states WHERE user_id = $1 AND channel_id = $2", [userId, channelId]))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("mention counts in channels never opened", (it) => {
  it.effect("@everyone and the reader's roles count from their joining, in channels they may read, until acked", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const early = yield* newChannel(owner.token, guildId, { name: "early" })
      yield* sent(owner.token, channelId, "@everyone before you came")
      yield* sent(owner.token, early, "@everyone before you came")

      const member = yield* memberWith(guildId, CHAT | Permission.MENTION_EVERYONE)
      const secret = yield* newChannel(owner.token, guildId, {
        name: "secret",
        permission_overwrites: [{ id: member.roleId, type: 0, deny: String(Permission.VIEW_CHANNEL) }]
      })
      const others = yield* newChannel(owner.token, guildId, { name: "others" })
      const otherRoleReply = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "others" } })
      assert.strictEqual(otherRoleReply.status, 200, JSON.stringify(otherRoleReply.body))
      const otherRole = field(otherRoleReply.body, "id")

      yield* sent(owner.token, channelId, "@everyone hello")
      yield* sent(owner.token, channelId, `<@&${member.roleId}> you too`)
      yield* sent(owner.token, channelId, `<@&${otherRole}> not you`)
      // The member's own @everyone (allowed to them) pings the owner, never themselves.
      const own = yield* send(member.token, channelId, { content: "@everyone from me" })
      expect(own.body).toMatchObject({ mention_everyone: true })
      const last = field(own.body, "id")
      yield* sent(owner.token, secret, `@everyone <@&${member.roleId}> not for your eyes`)
      yield* sent(owner.token, others, `<@&${otherRole}> only them`)

      // No row was ever stored for the member in these channels: the counts come on read.
      assert.deepStrictEqual(yield* storedRows(member.userId, channelId), [])
      const entries = yield* readyReadStates(member.token)
      assert.deepStrictEqual(entries.get(channelId), { id: channelId, mention_count: 2, last_message_id: null, last_pin_timestamp: null })
      assert.isFalse(entries.has(early), "mentions from before joining")
      assert.isFalse(entries.has(secret), "a channel the member cannot view")
      assert.isFalse(entries.has(others), "a role the member does not hold")
      // And for the owner, who never opened the channel either: the member's @everyone only.
      expect((yield* readyReadStates(owner.token)).get(channelId)).toMatchObject({ mention_count: 1 })

      const ack = yield* api.request("POST", `/channels/${channelId}/messages/${last}/ack`, { token: member.token, body: {} })
      assert.strictEqual(ack.status, 204, JSON.stringify(ack.body))
      expect((yield* readyReadStates(member.token)).get(channelId)).toMatchObject({ mention_count: 0, last_message_id: last })
    }))

  it.effect("a channel read before and hidden since: its row stays, its @everyone mentions count no more", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const clubReply = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "club" } })
      assert.strictEqual(clubReply.status, 200, JSON.stringify(clubReply.body))
      const club = field(clubReply.body, "id")
      // Hidden from the member's own role; the club role's allow lifts that while they hold it.
      const room = yield* newChannel(owner.token, guildId, {
        name: "club",
        permission_overwrites: [
          { id: member.roleId, type: 0, deny: String(Permission.VIEW_CHANNEL) },
          { id: club, type: 0, allow: String(Permission.VIEW_CHANNEL) }
        ]
      })
      const membership = `/guilds/${guildId}/members/${member.userId}/roles/${club}`
      const joined = yield* api.request("PUT", membership, { token: owner.token })
      assert.strictEqual(joined.status, 204, JSON.stringify(joined.body))

      const first = yield* sent(owner.token, room, "welcome")
      const ack = yield* api.request("POST", `/channels/${room}/messages/${first}/ack`, { token: member.token, body: {} })
      assert.strictEqual(ack.status, 204, JSON.stringify(ack.body))
      yield* sent(owner.token, room, "@everyone meeting")
      expect((yield* readyReadStates(member.token)).get(room)).toMatchObject({ mention_count: 1, last_message_id: first })

      const left = yield* api.request("DELETE", membership, { token: owner.token })
      assert.strictEqual(left.status, 204, JSON.stringify(left.body))
      yield* sent(owner.token, room, "@everyone another meeting")
      assert.lengthOf(yield* storedRows(member.userId, room), 1)
      expect((yield* readyReadStates(member.token)).get(room)).toMatchObject({ mention_count: 0, last_message_id: first })
    }))

  it.effect("a channel whose pins were seen but messages never read: one entry with both", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT)
      const pins = yield* api.request("POST", `/channels/${channelId}/pins/ack`, { token: member.token })
      assert.strictEqual(pins.status, 204, JSON.stringify(pins.body))
      expect((yield* readyReadStates(member.token)).get(channelId)).toMatchObject({ mention_count: 0, last_message_id: null })

      yield* sent(owner.token, channelId, "@everyone news")
      const entries = yield* readyReadStates(member.token)
      const entry = entries.get(channelId)
      expect(entry).toMatchObject({ mention_count: 1, last_message_id: null })
      assert.isString(entry?.last_pin_timestamp)
      assert.strictEqual([...entries.keys()].filter((id) => id === channelId).length, 1)
    }))
})
