import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, type Reply, TestApi } from "../support/Api.ts"
import { reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, fieldCode, guildWithChannel, idAgo, idsOf, memberWith, send, sent } from "./Fixtures.ts"

const CHAT_WITH_EMBEDS = CHAT | Permission.EMBED_LINKS

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("messages over HTTP", (it) => {
  it.effect("send, read, edit, delete, typing and ack in a guild channel", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const member = yield* memberWith(guildId, CHAT_WITH_EMBEDS)

      const created = yield* send(member.token, channelId, {
        content: `hello <@${owner.userId}>`,
        nonce: "n-1",
        tts: true,
        embeds: [{ title: "T", description: "D", color: 255, fields: [{ name: "a", value: "b" }], timestamp: 0 }]
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const id = field(created.body, "id")
      expect(created.body).toMatchObject({
        channel_id: channelId,
        author: { id: member.userId },
        type: 0,
        content: `hello <@${owner.userId}>`,
        nonce: "n-1",
        tts: false, // no SEND_TTS_MESSAGES
        pinned: false,
        edited_timestamp: null,
        mention_everyone: false,
        mentions: [{ id: owner.userId }],
        embeds: [{ type: "rich", title: "T", description: "D", color: 255, timestamp: "1970-01-01T00:00:00.000Z", fields: [{ name: "a", value: "b", inline: false }] }],
        attachments: []
      })

      const list = yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })
      assert.deepStrictEqual(idsOf(list), [id])
      expect(list.body).toEqual([created.body])
      const one = yield* api.request("GET", `/channels/${channelId}/messages/${id}`, { token: owner.token })
      expect(one.body).toEqual(created.body)
      const v1 = yield* api.request("GET", `/v1/channels/${channelId}/messages?limit=1`, { token: owner.token })
      assert.deepStrictEqual(idsOf(v1), [id])

      const edited = yield* api.request("PATCH", `/channels/${channelId}/messages/${id}`, {
        token: member.token,
        body: { content: "changed" }
      })
      assert.strictEqual(edited.status, 200, JSON.stringify(edited.body))
      expect(edited.body).toMatchObject({ id, content: "changed", mentions: [] })
      assert.isString((edited.body as { edited_timestamp: unknown }).edited_timestamp)
      const stored = yield* queryAt(api.databaseUrl, "SELECT content, guild_id::text AS guild_id, author_id::text AS author_id FROM messages WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ content: "changed", guild_id: guildId, author_id: member.userId }])

      const typing = yield* api.request("POST", `/channels/${channelId}/typing`, { token: member.token })
      assert.strictEqual(typing.status, 204, JSON.stringify(typing.body))
      const ack = yield* api.request("POST", `/channels/${channelId}/messages/${id}/ack`, { token: member.token, body: { mention_count: 0 } })
      assert.strictEqual(ack.status, 204, JSON.stringify(ack.body))
      const readState = yield* queryAt(api.databaseUrl, "SELECT last_message_id::text AS last FROM read_states WHERE user_id = $1", [member.userId])
      assert.deepStrictEqual(readState, [{ last: id }])

      const deleted = yield* api.request("DELETE", `/channels/${channelId}/messages/${id}`, { token: member.token })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      expectError(yield* api.request("GET", `/channels/${channelId}/messages/${id}`, { token: owner.token }), 404, "UNKNOWN_MESSAGE")
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [])
      const rows = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1", [channelId])
      assert.strictEqual(rows[0]?.n, 0)
      yield* sent(owner.token, channelId, "still works")
    }))

  it.effect("bad input: each validation code of the request, and paging bounds", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const post = (body: Record<string, unknown>) => send(owner.token, channelId, body)
      const invalid = (reply: Reply, code: string) => {
        expectError(reply, 400, "INVALID_FORM_BODY")
        assert.strictEqual(fieldCode(reply), code, JSON.stringify(reply.body))
      }
      invalid(yield* post({ content: "x".repeat(2001) }), "CONTENT_EXCEEDS_MAX_LENGTH")
      invalid(yield* post({ embeds: Array.from({ length: 11 }, () => ({ title: "t" })) }), "TOO_MANY_EMBEDS")
      invalid(yield* post({ embeds: [{ description: "d".repeat(4000) }, { description: "d".repeat(2001) }] }), "EMBEDS_EXCEED_MAX_CHARACTERS")
      invalid(yield* post({ content: "x", embeds: [{ url: "ftp://example.org" }] }), "INVALID_URL_FORMAT")
      invalid(yield* post({ content: "x", embeds: [{ image: { url: "nope" } }] }), "INVALID_URL_OR_ATTACHMENT_FORMAT")
      invalid(yield* post({ content: "x", embeds: [{ color: 16777216 }] }), "COLOR_VALUE_TOO_HIGH")
      invalid(yield* post({ content: "x", embeds: [{ color: -1 }] }), "COLOR_VALUE_TOO_LOW")
      invalid(yield* post({ content: "x", embeds: [{ timestamp: "yesterday" }] }), "INVALID_ISO_TIMESTAMP")
      invalid(yield* post({ content: "x", allowed_mentions: { parse: ["users"], users: ["1"] } }), "PARSE_AND_USERS_OR_ROLES_CANNOT_BE_USED_TOGETHER")
      invalid(yield* post({ message_reference: { type: 1, message_id: "1" } }), "FORWARD_REFERENCE_REQUIRES_CHANNEL_AND_MESSAGE")
      invalid(yield* post({ content: "x", message_reference: { message_id: "12x" } }), "INVALID_SNOWFLAKE_FORMAT")
      invalid(yield* post({ content: "x", attachments: [{ id: 0, filename: "a.png" }] }), "NO_FILE_FOR_ATTACHMENT_METADATA")
      invalid(yield* post({ sticker_ids: ["123"] }), "CUSTOM_STICKER_NOT_FOUND")
      invalid(yield* post({ content: "x", flags: 8192 }), "VOICE_MESSAGES_CANNOT_HAVE_CONTENT")
      expectError(yield* post({ content: " " }), 400, "CANNOT_SEND_EMPTY_MESSAGE")
      expectError(yield* post({ content: "x", message_reference: { message_id: "42" } }), 404, "UNKNOWN_MESSAGE")
      expectError(yield* api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, rawBody: "{", headers: { "content-type": "application/json" } }), 400, "INVALID_FORM_BODY")

      const id = yield* sent(owner.token, channelId, "target")
      invalid(yield* post({ content: "x", message_reference: { message_id: id, guild_id: "1" } }), "GUILD_ID_MUST_MATCH_REFERENCED_MESSAGE")
      const get = (query: string) => api.request("GET", `/channels/${channelId}/messages${query}`, { token: owner.token })
      invalid(yield* get(`?before=${id}&after=${id}`), "CANNOT_SPECIFY_BOTH_BEFORE_AND_AFTER")
      expectError(yield* get("?limit=0"), 400, "INVALID_FORM_BODY")
      expectError(yield* get("?limit=101"), 400, "INVALID_FORM_BODY")
      invalid(yield* get("?before=abc"), "INVALID_SNOWFLAKE_FORMAT")
      const bulk = (body: unknown) => api.request("POST", `/channels/${channelId}/messages/bulk-delete`, { token: owner.token, body })
      invalid(yield* bulk({ messages: Array.from({ length: 101 }, (_, i) => String(i + 1)) }), "CANNOT_DELETE_MORE_THAN_100_MESSAGES")
      invalid(yield* bulk({ messages: [] }), "MESSAGE_IDS_CANNOT_BE_EMPTY")
      const edit = yield* api.request("PATCH", `/channels/${channelId}/messages/${id}`, { token: owner.token, body: { attachments: [{ id: "9" }] } })
      invalid(edit, "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")

      expectError(yield* api.request("GET", "/channels/12345/messages", { token: owner.token }), 404, "UNKNOWN_CHANNEL")
      expectError(yield* api.request("GET", `/channels/${channelId}/messages`), 401, "UNAUTHORIZED")
      const category = yield* api.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { type: 4, name: "Stuff" } })
      expectError(yield* send(owner.token, field(category.body, "id"), { content: "x" }), 400, "CANNOT_SEND_MESSAGES_IN_NON_TEXT_CHANNEL")
    }))

  it.effect("forbidden: no VIEW_CHANNEL, no SEND_MESSAGES, no READ_MESSAGE_HISTORY, others' messages, timeouts", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const chatter = yield* memberWith(guildId, CHAT_WITH_EMBEDS)
      const reader = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.READ_MESSAGE_HISTORY)
      const blind = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.SEND_MESSAGES)
      const moderator = yield* memberWith(guildId, CHAT_WITH_EMBEDS | Permission.MANAGE_MESSAGES)
      const stranger = yield* api.register()
      const id = yield* sent(chatter.token, channelId, "mine")
      const list = (token: string) => api.request("GET", `/channels/${channelId}/messages`, { token })

      expectError(yield* send(reader.token, channelId, { content: "x" }), 403, "MISSING_PERMISSIONS")
      expectError(yield* list(blind.token), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("GET", `/channels/${channelId}/messages/${id}`, { token: blind.token }), 403, "MISSING_PERMISSIONS")
      expectError(yield* list(stranger.token), 403, "MISSING_ACCESS")
      expectError(yield* send(stranger.token, channelId, { content: "x" }), 403, "MISSING_ACCESS")
      assert.deepStrictEqual(idsOf(yield* list(reader.token)), [id])

      const hide = yield* api.request("PUT", `/channels/${channelId}/permissions/${reader.userId}`, {
        token: owner.token,
        body: { type: 1, deny: Permission.VIEW_CHANNEL.toString() }
      })
      assert.strictEqual(hide.status, 204, JSON.stringify(hide.body))
      expectError(yield* list(reader.token), 403, "MISSING_ACCESS")
      expectError(yield* api.request("POST", `/channels/${channelId}/messages/${id}/ack`, { token: reader.token, body: {} }), 403, "MISSING_ACCESS")

      const path = `/channels/${channelId}/messages/${id}`
      expectError(yield* api.request("PATCH", path, { token: moderator.token, body: { content: "theirs" } }), 403, "CANNOT_EDIT_OTHER_USER_MESSAGE")
      expectError(yield* api.request("DELETE", path, { token: blind.token }), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("POST", `/channels/${channelId}/messages/bulk-delete`, { token: chatter.token, body: { messages: [id, "1"] } }), 403, "MISSING_PERMISSIONS")

      const timeout = yield* api.request("PATCH", `/guilds/${guildId}/members/${chatter.userId}`, {
        token: owner.token,
        body: { communication_disabled_until: new Date(Date.now() + 3600_000).toISOString() }
      })
      assert.strictEqual(timeout.status, 200, JSON.stringify(timeout.body))
      expectError(yield* send(chatter.token, channelId, { content: "x" }), 403, "COMMUNICATION_DISABLED")
      expectError(yield* api.request("POST", `/channels/${channelId}/typing`, { token: chatter.token }), 403, "COMMUNICATION_DISABLED")
      assert.deepStrictEqual(idsOf(yield* list(chatter.token)), [id])

      const removed = yield* api.request("DELETE", path, { token: moderator.token, headers: { "X-Audit-Log-Reason": "spam" } })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      const audit = yield* queryAt(api.databaseUrl, "SELECT action_type, target_id, reason, options FROM guild_audit_log_entries WHERE guild_id = $1 AND action_type = 72", [guildId])
      assert.deepStrictEqual(audit, [{ action_type: 72, target_id: chatter.userId, reason: "spam", options: { channel_id: channelId, count: "1" } }])
    }))

  it.effect("nonce de-duplication, slowmode and bulk deletion", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const chatter = yield* memberWith(guildId, CHAT_WITH_EMBEDS)
      const first = yield* send(chatter.token, channelId, { content: "once", nonce: 12345 })
      const again = yield* send(chatter.token, channelId, { content: "once", nonce: "12345" })
      assert.strictEqual(field(again.body, "id"), field(first.body, "id"))
      assert.strictEqual(field(again.body, "nonce"), "12345")
      const count = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1", [channelId])
      assert.strictEqual(count[0]?.n, 1)

      const slow = yield* api.request("PATCH", `/channels/${channelId}`, { token: owner.token, body: { rate_limit_per_user: 30 } })
      assert.strictEqual(slow.status, 200, JSON.stringify(slow.body))
      const refused = yield* send(chatter.token, channelId, { content: "too soon" })
      expectError(refused, 429, "SLOWMODE_RATE_LIMITED")
      expect(refused.body).toMatchObject({ global: false })
      const retryAfter = (refused.body as { retry_after: number }).retry_after
      assert.isTrue(retryAfter > 0 && retryAfter <= 30, String(retryAfter))
      assert.isNotNull(refused.headers.get("retry-after"))
      const ownerIds = [yield* sent(owner.token, channelId, "a"), yield* sent(owner.token, channelId, "b")]

      const bulk = yield* api.request("POST", `/channels/${channelId}/messages/bulk-delete`, {
        token: owner.token,
        body: { message_ids: [...ownerIds, field(first.body, "id")] }
      })
      assert.strictEqual(bulk.status, 204, JSON.stringify(bulk.body))
      assert.deepStrictEqual(idsOf(yield* api.request("GET", `/channels/${channelId}/messages`, { token: owner.token })), [])
      const left = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE channel_id = $1", [channelId])
      assert.strictEqual(left[0]?.n, 0)
      const audit = yield* queryAt(api.databaseUrl, "SELECT target_id, options FROM guild_audit_log_entries WHERE guild_id = $1 AND action_type = 73", [guildId])
      assert.deepStrictEqual(audit, [{ target_id: channelId, options: { count: "3" } }])
      const old = idAgo(15 * 86_400_000)
      const tooOld = yield* api.request("POST", `/channels/${channelId}/messages/bulk-delete`, { token: owner.token, body: { messages: [ownerIds[0], old] } })
      expectError(tooOld, 400, "INVALID_FORM_BODY")
      const single = yield* api.request("POST", `/channels/${channelId}/messages/bulk-delete`, { token: owner.token, body: { messages: [old] } })
      expectError(single, 400, "INVALID_FORM_BODY")
    }))

  it.effect("DELETE .../attachments/{id}: removes one attachment; a message left with nothing is deleted", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const other = yield* memberWith(guildId, CHAT_WITH_EMBEDS)
      const messageId = idAgo(0)
      const files = [{ id: "11", filename: "a.png", size: 3, flags: 0 }, { id: "12", filename: "b.png", size: 4, flags: 0 }]
      yield* queryAt(
        api.databaseUrl,
        "INSERT INTO messages (channel_id, id, guild_id, author_id, attachments, created_at) VALUES ($1, $2, $3, $4, $5::jsonb, now())",
        [channelId, messageId, guildId, owner.userId, JSON.stringify(files)]
      )
      yield* reload(guildId)
      const path = (attachmentId: string) => `/channels/${channelId}/messages/${messageId}/attachments/${attachmentId}`
      expectError(yield* api.request("DELETE", path("11"), { token: other.token }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* api.request("DELETE", path("11"), { token: owner.token })).status, 204)
      const after = yield* api.request("GET", `/channels/${channelId}/messages/${messageId}`, { token: owner.token })
      expect(after.body).toMatchObject({ attachments: [{ id: "12", filename: "b.png" }] })
      const again = yield* api.request("DELETE", path("11"), { token: owner.token })
      expectError(again, 400, "INVALID_FORM_BODY")
      assert.strictEqual(fieldCode(again), "ATTACHMENT_ID_NOT_FOUND_IN_MESSAGE")
      assert.strictEqual((yield* api.request("DELETE", path("12"), { token: owner.token })).status, 204)
      expectError(yield* api.request("GET", `/channels/${channelId}/messages/${messageId}`, { token: owner.token }), 404, "UNKNOWN_MESSAGE")
      const rows = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM messages WHERE id = $1", [messageId])
      assert.strictEqual(rows[0]?.n, 0)
    }))
})
