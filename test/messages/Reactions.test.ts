import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { identified } from "../gateway/Client.ts"
import { expectError, type Reply, TestApi } from "../support/Api.ts"
import { reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, fieldCode, guildWithChannel, memberWith, sent } from "./Fixtures.ts"

const REACT = CHAT | Permission.ADD_REACTIONS

const THUMBS = "👍"
const FAMILY = "👨‍👩‍👧"
const EMOJIS = ["😀", "😁", "😂", "🤣", "😃", "😄", "😅", "😆", "😉", "😊", "😋", "😎", "😍", "😘", "🥰", "😗", "😙", "🥲", "😚", "🙂", "🤗"]

const reactionsPath = (channelId: string, messageId: string, emoji?: string) =>
  `/channels/${channelId}/messages/${messageId}/reactions${emoji === undefined ? "" : `/${encodeURIComponent(emoji)}`}`

const react = (token: string, channelId: string, messageId: string, emoji: string) =>
  Effect.flatMap(TestApi, (api) => api.request("PUT", `${reactionsPath(channelId, messageId, emoji)}/@me`, { token }))

const reacted = (token: string, channelId: string, messageId: string, emoji: string) =>
  Effect.map(react(token, channelId, messageId, emoji), (reply) => assert.strictEqual(reply.status, 204, JSON.stringify(reply.body)))

const noContent = (reply: Reply) => assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))

/** The `reactions` of a message as `token`'s user reads it. */
const reactionsSeen = (token: string, channelId: string, messageId: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("GET", `/channels/${channelId}/messages/${messageId}`, { token })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    return (reply.body as { reactions?: unknown }).reactions
  })

const userIds = (reply: Reply) => {
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return (reply.body as ReadonlyArray<{ id: string }>).map((u) => u.id)
}

const byId = (a: string, b: string) => (BigInt(a) < BigInt(b) ? -1 : 1)

/** A custom emoji of the guild, stored and then loaded by the actor. */
const customEmoji = (guildId: string, id: string, name: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    yield* queryAt(api.databaseUrl, "INSERT INTO guild_emojis (id, guild_id, name, media_hash) VALUES ($1, $2, $3, 'h')", [id, guildId, name])
    yield* reload(guildId)
  })

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("reactions over HTTP", (it) => {
  it.effect("add, count, me, list users, remove own and others', remove an emoji, remove all; stored and reloaded", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, REACT)
      yield* customEmoji(guildId, "7100000000000000001", "party")
      const id = yield* sent(member.token, channelId, "react to me")

      yield* reacted(member.token, channelId, id, THUMBS)
      yield* reacted(member.token, channelId, id, THUMBS) // twice is once
      yield* reacted(owner.token, channelId, id, THUMBS)
      yield* reacted(owner.token, channelId, id, FAMILY)
      yield* reacted(owner.token, channelId, id, "party:7100000000000000001")
      const custom = { id: "7100000000000000001", name: "party", animated: false }
      assert.deepStrictEqual(yield* reactionsSeen(member.token, channelId, id), [
        { emoji: { id: null, name: THUMBS }, count: 2, me: true },
        { emoji: { id: null, name: FAMILY }, count: 1, me: false },
        { emoji: custom, count: 1, me: false }
      ])
      const page = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
      expect(page.body).toMatchObject([{ id, reactions: [{ count: 2, me: true }, { count: 1, me: true }, { count: 1, me: true }] }])

      const both = [member.userId, owner.userId].sort(byId)
      assert.deepStrictEqual(userIds(yield* api.request("GET", reactionsPath(channelId, id, THUMBS), { token: member.token })), both)
      const first = yield* api.request("GET", `${reactionsPath(channelId, id, THUMBS)}?limit=1`, { token: member.token })
      assert.deepStrictEqual(userIds(first), both.slice(0, 1))
      const rest = yield* api.request("GET", `${reactionsPath(channelId, id, THUMBS)}?after=${both[0]}`, { token: member.token })
      assert.deepStrictEqual(userIds(rest), both.slice(1))
      const paged = yield* api.request("GET", `${reactionsPath(channelId, id, THUMBS)}/users?limit=1`, { token: member.token })
      expect(paged.body).toMatchObject({ items: [{ id: both[0] }], has_more: true, next_after: both[0] })
      assert.deepStrictEqual(userIds(yield* api.request("GET", reactionsPath(channelId, id, "😀"), { token: member.token })), [])

      const stored = yield* queryAt(api.databaseUrl, "SELECT emoji_key, user_id::text AS user_id FROM message_reactions WHERE message_id = $1 ORDER BY emoji_key, user_id", [id])
      assert.strictEqual(stored.length, 4)
      yield* reload(guildId)
      assert.deepStrictEqual(yield* reactionsSeen(owner.token, channelId, id), [
        { emoji: { id: null, name: THUMBS }, count: 2, me: true },
        { emoji: { id: null, name: FAMILY }, count: 1, me: true },
        { emoji: custom, count: 1, me: true }
      ])

      noContent(yield* api.request("DELETE", `${reactionsPath(channelId, id, THUMBS)}/@me`, { token: member.token }))
      noContent(yield* api.request("DELETE", `${reactionsPath(channelId, id, THUMBS)}/@me`, { token: member.token }))
      noContent(yield* api.request("DELETE", `${reactionsPath(channelId, id, FAMILY)}/${owner.userId}`, { token: owner.token }))
      assert.deepStrictEqual(yield* reactionsSeen(member.token, channelId, id), [
        { emoji: { id: null, name: THUMBS }, count: 1, me: false },
        { emoji: custom, count: 1, me: false }
      ])
      noContent(yield* api.request("DELETE", reactionsPath(channelId, id, "party:7100000000000000001"), { token: owner.token }))
      assert.deepStrictEqual(yield* reactionsSeen(member.token, channelId, id), [{ emoji: { id: null, name: THUMBS }, count: 1, me: false }])
      noContent(yield* api.request("DELETE", reactionsPath(channelId, id), { token: owner.token }))
      assert.strictEqual(yield* reactionsSeen(member.token, channelId, id), undefined)
      const left = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM message_reactions WHERE message_id = $1", [id])
      assert.strictEqual(left[0]?.n, 0)
    }))

  it.effect("a message older than the window: reactions go to Postgres and come back from it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, REACT)
      const old = yield* sent(owner.token, channelId, "old")
      // 100 newer messages push it out of the actor's window.
      yield* queryAt(api.databaseUrl, `INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at)
        SELECT $1::bigint, $2::bigint + n, $3::bigint, $4::bigint, 'filler', now() FROM generate_series(1, 100) AS n`, [channelId, old, guildId, owner.userId])
      yield* reload(guildId)

      yield* reacted(member.token, channelId, old, THUMBS)
      yield* reacted(owner.token, channelId, old, THUMBS)
      assert.deepStrictEqual(yield* reactionsSeen(member.token, channelId, old), [{ emoji: { id: null, name: THUMBS }, count: 2, me: true }])
      const page = yield* api.request("GET", `/channels/${channelId}/messages?around=${old}&limit=1`, { token: owner.token })
      expect(page.body).toMatchObject([{ id: old, reactions: [{ count: 2, me: true }] }])
      assert.deepStrictEqual(
        userIds(yield* api.request("GET", reactionsPath(channelId, old, THUMBS), { token: member.token })),
        [member.userId, owner.userId].sort(byId)
      )
      noContent(yield* api.request("DELETE", `${reactionsPath(channelId, old, THUMBS)}/${member.userId}`, { token: owner.token }))
      assert.deepStrictEqual(yield* reactionsSeen(member.token, channelId, old), [{ emoji: { id: null, name: THUMBS }, count: 1, me: false }])
      expectError(yield* react(member.token, channelId, "42", THUMBS), 404, "UNKNOWN_MESSAGE")
    }))

  it.effect("bad input: not an emoji, an unknown custom emoji, paging bounds, too many emojis", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, channelId } = yield* guildWithChannel
      const id = yield* sent(owner.token, channelId, "target")
      const invalid = (reply: Reply, code: string) => {
        expectError(reply, 400, "INVALID_FORM_BODY")
        assert.strictEqual(fieldCode(reply), code, JSON.stringify(reply.body))
      }
      invalid(yield* react(owner.token, channelId, id, "abc"), "NOT_A_VALID_UNICODE_EMOJI")
      invalid(yield* react(owner.token, channelId, id, `${THUMBS}${THUMBS}`), "NOT_A_VALID_UNICODE_EMOJI")
      invalid(yield* react(owner.token, channelId, id, "nope:123"), "CUSTOM_EMOJI_NOT_FOUND")
      invalid(yield* api.request("GET", reactionsPath(channelId, id, "x"), { token: owner.token }), "NOT_A_VALID_UNICODE_EMOJI")
      expectError(yield* api.request("GET", `${reactionsPath(channelId, id, THUMBS)}?limit=0`, { token: owner.token }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("GET", `${reactionsPath(channelId, id, THUMBS)}?limit=101`, { token: owner.token }), 400, "INVALID_FORM_BODY")
      invalid(yield* api.request("GET", `${reactionsPath(channelId, id, THUMBS)}?after=x`, { token: owner.token }), "INVALID_SNOWFLAKE_FORMAT")
      invalid(yield* api.request("DELETE", `${reactionsPath(channelId, id, THUMBS)}/nobody`, { token: owner.token }), "INVALID_SNOWFLAKE_FORMAT")
      for (const emoji of EMOJIS.slice(0, 20)) yield* reacted(owner.token, channelId, id, emoji)
      expectError(yield* react(owner.token, channelId, id, EMOJIS[20] ?? ""), 400, "MAX_REACTIONS")
      yield* reacted(owner.token, channelId, id, EMOJIS[0] ?? "") // an emoji already there is no new one
      expectError(yield* api.request("PUT", `${reactionsPath(channelId, id, THUMBS)}/@me`), 401, "UNAUTHORIZED")
    }))

  it.effect("forbidden: ADD_REACTIONS to start a reaction, READ_MESSAGE_HISTORY to join, MANAGE_MESSAGES for others'", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const reader = yield* memberWith(guildId, CHAT)
      const blind = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES | Permission.ADD_REACTIONS)
      const id = yield* sent(owner.token, channelId, "target")

      expectError(yield* react(reader.token, channelId, id, THUMBS), 403, "MISSING_PERMISSIONS")
      yield* reacted(owner.token, channelId, id, THUMBS)
      yield* reacted(reader.token, channelId, id, THUMBS) // joining needs no ADD_REACTIONS
      expectError(yield* react(blind.token, channelId, id, THUMBS), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("GET", reactionsPath(channelId, id, THUMBS), { token: blind.token }), 403, "MISSING_PERMISSIONS")
      const others = `${reactionsPath(channelId, id, THUMBS)}/${owner.userId}`
      expectError(yield* api.request("DELETE", others, { token: reader.token }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("DELETE", reactionsPath(channelId, id, THUMBS), { token: reader.token }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("DELETE", reactionsPath(channelId, id), { token: reader.token }), 403, "MISSING_PERMISSIONS")
      const stranger = yield* api.register()
      expectError(yield* react(stranger.token, channelId, id, THUMBS), 403, "MISSING_ACCESS")
      assert.deepStrictEqual(yield* reactionsSeen(owner.token, channelId, id), [{ emoji: { id: null, name: THUMBS }, count: 2, me: true }])
    }))

  it.effect("every change reaches the gateway: add, remove, remove emoji, remove all, typing", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, REACT)
      const id = yield* sent(owner.token, channelId, "watched")
      const { client } = yield* identified(owner.token)
      assert.strictEqual((yield* client.dispatch).t, "GUILD_CREATE")

      yield* reacted(member.token, channelId, id, THUMBS)
      const added = yield* client.dispatch
      assert.strictEqual(added.t, "MESSAGE_REACTION_ADD")
      expect(added.d).toMatchObject({
        user_id: member.userId,
        channel_id: channelId,
        message_id: id,
        guild_id: guildId,
        emoji: { id: null, name: THUMBS },
        member: { user: { id: member.userId } },
        message_author_id: owner.userId
      })
      noContent(yield* api.request("DELETE", `${reactionsPath(channelId, id, THUMBS)}/@me`, { token: member.token }))
      const removed = yield* client.dispatch
      assert.strictEqual(removed.t, "MESSAGE_REACTION_REMOVE")
      expect(removed.d).toMatchObject({ user_id: member.userId, message_id: id, emoji: { name: THUMBS } })

      yield* reacted(member.token, channelId, id, THUMBS)
      assert.strictEqual((yield* client.dispatch).t, "MESSAGE_REACTION_ADD")
      noContent(yield* api.request("DELETE", reactionsPath(channelId, id, THUMBS), { token: owner.token }))
      const emojiGone = yield* client.dispatch
      assert.strictEqual(emojiGone.t, "MESSAGE_REACTION_REMOVE_EMOJI")
      expect(emojiGone.d).toMatchObject({ channel_id: channelId, message_id: id, guild_id: guildId, emoji: { name: THUMBS } })

      yield* reacted(member.token, channelId, id, FAMILY)
      assert.strictEqual((yield* client.dispatch).t, "MESSAGE_REACTION_ADD")
      noContent(yield* api.request("DELETE", reactionsPath(channelId, id), { token: owner.token }))
      const allGone = yield* client.dispatch
      assert.strictEqual(allGone.t, "MESSAGE_REACTION_REMOVE_ALL")
      assert.deepStrictEqual(allGone.d, { channel_id: channelId, message_id: id, guild_id: guildId })

      noContent(yield* api.request("POST", `/channels/${channelId}/typing`, { token: member.token }))
      const typing = yield* client.dispatch
      assert.strictEqual(typing.t, "TYPING_START")
      expect(typing.d).toMatchObject({ channel_id: channelId, guild_id: guildId, user_id: member.userId })
    }))
})
