import { assert, describe, expect, it } from "@effect/vitest"
import { Effect } from "effect"
import { getMessage, listMessages } from "../../shards/guild/operations/MessageReads.ts"
import { startTyping } from "../../shards/guild/operations/Messages.ts"
import type { GuildState } from "../../shards/guild/State.ts"
import { codeOf, contextOf, create, guild, NOW, sendIn } from "./GuildState.ts"
import { CarriedId } from "../../src/model/Ids.ts"

const refusal = (state: GuildState, actorId: string, channelId: string, request: Parameters<typeof create>[3]) =>
  Effect.map(Effect.flip(create(state, actorId, channelId, request)), codeOf)

describe("message creation decisions", () => {
  it.effect("a message takes the operation id, joins the window and announces itself with its guild", () =>
    Effect.gen(function*() {
      const decision = yield* create(guild, "2", "101", { content: "hi" }, { operationId: "9000" })
      assert.isFalse("retry_after_ms" in decision.reply)
      expect(decision.reply).toMatchObject({ id: "9000", channel_id: "101", author: { id: "2" }, content: "hi", type: 0 })
      const channel = decision.next.channelMessages.get("101")
      assert.strictEqual(channel?.lastId, 9000n)
      assert.strictEqual(channel?.window.find(9000n)?.authorId, "2")
      assert.deepStrictEqual(decision.events.map((e) => e.type), ["MESSAGE_CREATE"])
      expect(decision.events[0]?.data).toMatchObject({ id: "9000", channel_id: "101", guild_id: "100" })
      // The author's member from the actor's memory (`message.member` in discord.js), without `user`.
      const member = guild.members.get("2")
      expect(decision.events[0]?.data).toMatchObject({ member: { roles: member?.roles, joined_at: member?.joined_at } })
      expect(decision.events[0]?.data).not.toHaveProperty("member.user")
      assert.deepStrictEqual(decision.rows?.map((row) => [row.sink.name, row.key]), [["messages", "9000"]])
    }))

  it.effect("ids grow in decision order even when a sending process's clock is behind", () =>
    Effect.gen(function*() {
      const first = yield* create(guild, "2", "101", { content: "a" }, { operationId: "9000" })
      const second = yield* create(first.next, "3", "101", { content: "b" }, { operationId: "5000" })
      const third = yield* create(second.next, "2", "101", { content: "c" }, { operationId: "9500" })
      assert.deepStrictEqual([first.reply, second.reply, third.reply].map((r) => "id" in r ? r.id : ""), ["9000", "9001", "9500"])
    }))

  it.effect("a resend with the same nonce answers the first message and changes nothing", () =>
    Effect.gen(function*() {
      const { state, message } = yield* sendIn(guild, "2", "101", { content: "once", nonce: "abc" })
      const again = yield* create(state, "2", "101", { content: "once", nonce: "abc" })
      assert.strictEqual(again.next, state)
      expect(again.reply).toMatchObject({ id: message.id, nonce: "abc" })
      const other = yield* create(state, "3", "101", { content: "once", nonce: "abc" })
      assert.notStrictEqual("id" in other.reply ? other.reply.id : "", message.id)
      const later = yield* create(state, "2", "101", { content: "once", nonce: "abc" }, { now: NOW + 6 * 60_000 })
      assert.notStrictEqual("id" in later.reply ? later.reply.id : "", message.id)
    }))

  it.effect("slowmode: the same member waits out the channel's rate limit; MANAGE_MESSAGES does not", () =>
    Effect.gen(function*() {
      const { state } = yield* sendIn(guild, "2", "103", { content: "first" })
      const early = yield* create(state, "2", "103", { content: "second" }, { now: NOW + 1000 })
      assert.deepStrictEqual(early.reply, { retry_after_ms: 9000 })
      assert.strictEqual(early.next, state)
      const later = yield* create(state, "2", "103", { content: "second" }, { now: NOW + 10_000 })
      assert.isFalse("retry_after_ms" in later.reply)
      const moderator = yield* sendIn(guild, "3", "103", { content: "one" })
      yield* sendIn(moderator.state, "3", "103", { content: "two" }, NOW + 1)
      yield* sendIn(state, "2", "101", { content: "no slowmode here" }, NOW + 1)
    }))

  it.effect("who may send: members with SEND_MESSAGES, not timed out, in a text channel", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* refusal(guild, "4", "101", { content: "x" }), "MISSING_PERMISSIONS")
      assert.strictEqual(yield* refusal(guild, "9", "101", { content: "x" }), "MISSING_ACCESS")
      assert.strictEqual(yield* refusal(guild, "5", "101", { content: "x" }), "COMMUNICATION_DISABLED")
      assert.strictEqual(yield* refusal(guild, "2", "102", { content: "x" }), "CANNOT_SEND_MESSAGES_IN_NON_TEXT_CHANNEL")
      assert.strictEqual(yield* refusal(guild, "2", "999", { content: "x" }), "UNKNOWN_CHANNEL")
      assert.strictEqual(yield* refusal(guild, "6", "101", { embeds: [{ title: "x" }] }), "MISSING_PERMISSIONS")
      yield* sendIn(guild, "6", "101", { content: "text is fine" })
      const disabled: GuildState = { ...guild, guild: { ...guild.guild, disabled_operations: 16 } }
      assert.strictEqual(yield* refusal(disabled, "2", "101", { content: "x" }), "FEATURE_TEMPORARILY_DISABLED")
      yield* sendIn(disabled, "1", "101", { content: "the owner may" })
    }))

  it.effect("what a message must and must not carry", () =>
    Effect.gen(function*() {
      assert.strictEqual(yield* refusal(guild, "2", "101", { content: "  " }), "CANNOT_SEND_EMPTY_MESSAGE")
      assert.strictEqual(yield* refusal(guild, "2", "101", {}), "CANNOT_SEND_EMPTY_MESSAGE")
      assert.strictEqual(yield* refusal(guild, "2", "101", { content: "x", attachments: [{ id: 0, filename: "a.png" }] }), "NO_FILE_FOR_ATTACHMENT_METADATA")
      assert.strictEqual(yield* refusal(guild, "2", "101", { content: "x", favorite_meme_id: "77" }), "FAVORITE_MEME_NOT_FOUND")
      assert.strictEqual(yield* refusal(guild, "2", "101", { sticker_ids: ["77"] }), "CUSTOM_STICKER_NOT_FOUND")
      assert.strictEqual(yield* refusal(guild, "2", "101", { content: "x", flags: 8192 }), "VOICE_MESSAGES_CANNOT_HAVE_CONTENT")
      assert.strictEqual(yield* refusal(guild, "2", "101", { embeds: [{ title: "x" }], flags: 8192 }), "VOICE_MESSAGES_CANNOT_HAVE_EMBEDS")
      assert.strictEqual(yield* refusal(guild, "2", "101", { flags: 8192 }), "VOICE_MESSAGES_REQUIRE_SINGLE_ATTACHMENT")
      const flagged = yield* sendIn(guild, "2", "101", { content: "quiet", flags: 4 | 4096 | 1 })
      assert.strictEqual(flagged.message.flags, 4 | 4096)
    }))

  it.effect("mentions ping members, mentionable roles and @everyone as permissions and allowed_mentions say", () =>
    Effect.gen(function*() {
      const mentions = (actorId: string, content: string, allowed?: Parameters<typeof create>[3]["allowed_mentions"]) =>
        Effect.map(sendIn(guild, actorId, "101", { content, allowed_mentions: allowed }), ({ message }) => ({
          users: message.mentions.map((u) => u.id),
          roles: message.mention_roles,
          everyone: message.mention_everyone
        }))
      assert.deepStrictEqual(yield* mentions("2", "<@3> <@!4> <@999> <@&13> <@&10> @everyone"), { users: ["3", "4"], roles: ["13"], everyone: false })
      assert.deepStrictEqual(yield* mentions("1", "<@&10> @here"), { users: [], roles: ["10"], everyone: true })
      assert.deepStrictEqual(yield* mentions("1", "<@3> <@&10> @everyone", { parse: [] }), { users: [], roles: [], everyone: false })
      assert.deepStrictEqual(yield* mentions("1", "<@3> <@4>", { users: ["4"] }), { users: ["4"], roles: [], everyone: false })
      const quiet: GuildState = { ...guild, guild: { ...guild.guild, disabled_operations: 2 } }
      const { message } = yield* sendIn(quiet, "1", "101", { content: "@everyone" })
      assert.isFalse(message.mention_everyone)
    }))

  it.effect("replies answer a message of their channel and ping its author; forwards copy a message", () =>
    Effect.gen(function*() {
      const { state, message: target } = yield* sendIn(guild, "3", "101", { content: "question" })
      const reply = yield* sendIn(state, "2", "101", { content: "answer", message_reference: { message_id: target.id } })
      expect(reply.message).toMatchObject({
        type: 19,
        message_reference: { channel_id: "101", message_id: target.id, guild_id: "100", type: 0 },
        referenced_message: { id: target.id, content: "question" },
        mentions: [{ id: "3" }]
      })
      const silent = yield* sendIn(state, "2", "101", {
        content: "answer",
        message_reference: { message_id: target.id },
        allowed_mentions: { parse: [], replied_user: false }
      })
      assert.deepStrictEqual(silent.message.mentions, [])
      const elsewhere = { content: "x", message_reference: { message_id: target.id, channel_id: "103" } }
      assert.strictEqual(yield* refusal(state, "2", "101", elsewhere), "INVALID_CHANNEL")
      const otherGuild = { content: "x", message_reference: { message_id: target.id, guild_id: "555" } }
      assert.strictEqual(yield* refusal(state, "2", "101", otherGuild), "GUILD_ID_MUST_MATCH_REFERENCED_MESSAGE")
      assert.strictEqual(yield* refusal(state, "2", "101", { content: "x", message_reference: { message_id: "1" } }), "UNKNOWN_MESSAGE")

      const forward = yield* sendIn(state, "2", "103", { message_reference: { type: 1, message_id: target.id, channel_id: "101" } })
      expect(forward.message).toMatchObject({
        type: 0,
        content: "",
        message_reference: { type: 1, channel_id: "101", message_id: target.id, guild_id: "100" },
        message_snapshots: [{ content: "question", type: 0 }]
      })
      const chatty = { content: "look", message_reference: { type: 1 as const, message_id: target.id, channel_id: "101" } }
      assert.strictEqual(yield* refusal(state, "2", "103", chatty), "FORWARD_MESSAGES_CANNOT_CONTAIN_CONTENT")
    }))

  it.effect("a reply to a message older than the window uses the copy the caller read", () =>
    Effect.gen(function*() {
      const first = yield* sendIn(guild, "3", "101", { content: "long ago" })
      const old = first.message
      let state = first.state
      for (let i = 0; i < 120; i++) state = (yield* sendIn(state, "2", "101", { content: `m${i}` })).state
      assert.isUndefined(state.channelMessages.get("101")?.window.find(BigInt(old.id)))
      const request = { content: "re", message_reference: { message_id: old.id } }
      assert.strictEqual(yield* refusal(state, "2", "101", request), "UNKNOWN_MESSAGE")
      const withCopy = yield* create(state, "2", "101", request, { referenced: old })
      expect(withCopy.reply).toMatchObject({ referenced_message: { id: old.id } })
    }))

  it.effect("typing: TYPING_START for whoever may send, none when the guild switched it off", () =>
    Effect.gen(function*() {
      const typing = (state: GuildState, actorId: string) =>
        startTyping.decide(state, startTyping.command.make({ channelId: CarriedId.ChannelId.make("101") }), contextOf(actorId))
      const decision = yield* typing(guild, "2")
      assert.deepStrictEqual(decision.events.map((e) => e.type), ["TYPING_START"])
      expect(decision.events[0]?.data).toMatchObject({ channel_id: "101", guild_id: "100", user_id: "2", member: { user: { id: "2" } } })
      assert.strictEqual((yield* Effect.flip(typing(guild, "5"))).code, "COMMUNICATION_DISABLED")
      const quiet = yield* typing({ ...guild, guild: { ...guild.guild, disabled_operations: 4 } }, "2")
      assert.deepStrictEqual(quiet.events, [])
    }))

  it.effect("reads need READ_MESSAGE_HISTORY and tell a known-absent message from one only Postgres may have", () =>
    Effect.gen(function*() {
      const { state, message } = yield* sendIn(guild, "2", "101", { content: "x" })
      const list = (viewerId: string) => listMessages.run(state, listMessages.query.make({ channelId: CarriedId.ChannelId.make("101"), limit: 50 }), viewerId)
      assert.strictEqual((yield* Effect.flip(list("4"))).code, "MISSING_PERMISSIONS")
      assert.strictEqual(JSON.parse((yield* list("2")) ?? "[]")[0].id, message.id)
      const get = (messageId: string) => getMessage.run(state, getMessage.query.make({ channelId: CarriedId.ChannelId.make("101"), messageId: CarriedId.MessageId.make(messageId) }), "2")
      assert.strictEqual(JSON.parse((yield* get(message.id)) ?? "{}").content, "x")
      assert.strictEqual((yield* Effect.flip(get("99999999999"))).code, "UNKNOWN_MESSAGE")
    }))
})
