import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { identified } from "../gateway/Client.ts"
import { expectError, type Reply, TestApi } from "../support/Api.ts"
import { reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { CHAT, fieldCode, guildWithChannel, memberWith, sent } from "./Fixtures.ts"

const pin = (token: string, channelId: string, messageId: string, method: "PUT" | "DELETE" = "PUT") =>
  Effect.flatMap(TestApi, (api) => api.request(method, `/channels/${channelId}/pins/${messageId}`, { token }))

const noContent = (reply: Reply) => assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))

interface PinsPage {
  readonly items: ReadonlyArray<{ readonly message: { readonly id: string; readonly pinned: boolean }; readonly pinned_at: string }>
  readonly has_more: boolean
}

const pinsOf = (token: string, channelId: string, query = "") =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("GET", `/channels/${channelId}/messages/pins${query}`, { token })
    assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    const page = reply.body as PinsPage
    return { ids: page.items.map((i) => i.message.id), page }
  })

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("pins over HTTP", (it) => {
  it.effect("pin, list newest pin first with paging, unpin; the message shows pinned; audited; ack", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const pinner = yield* memberWith(guildId, CHAT | Permission.PIN_MESSAGES)
      const first = yield* sent(owner.token, channelId, "first")
      const second = yield* sent(owner.token, channelId, "second")

      noContent(yield* pin(pinner.token, channelId, first))
      noContent(yield* pin(owner.token, channelId, second))
      noContent(yield* pin(owner.token, channelId, second)) // pinned already: nothing changes
      const message = yield* api.request("GET", `/channels/${channelId}/messages/${first}`, { token: owner.token })
      expect(message.body).toMatchObject({ id: first, pinned: true })
      const all = yield* pinsOf(pinner.token, channelId)
      assert.deepStrictEqual(all.ids, [second, first])
      assert.isFalse(all.page.has_more)
      expect(all.page.items[0]).toMatchObject({ message: { id: second, content: "second", pinned: true } })
      const one = yield* pinsOf(pinner.token, channelId, "?limit=1")
      assert.deepStrictEqual(one.ids, [second])
      assert.isTrue(one.page.has_more)
      const older = yield* pinsOf(pinner.token, channelId, `?before=${encodeURIComponent(one.page.items[0]?.pinned_at ?? "")}`)
      assert.deepStrictEqual(older.ids, [first])

      const audit = yield* api.request("GET", `/guilds/${guildId}/audit-logs?action_type=74`, { token: owner.token })
      expect(audit.body).toMatchObject({ audit_log_entries: [{ action_type: 74 }, { action_type: 74 }] })

      yield* reload(guildId)
      noContent(yield* pin(pinner.token, channelId, first, "DELETE"))
      assert.deepStrictEqual((yield* pinsOf(owner.token, channelId)).ids, [second])
      const unpinned = yield* api.request("GET", `/channels/${channelId}/messages/${first}`, { token: owner.token })
      expect(unpinned.body).toMatchObject({ id: first, pinned: false })
      const stored = yield* queryAt(api.databaseUrl, "SELECT id::text AS id FROM messages WHERE channel_id = $1 AND pinned", [channelId])
      assert.deepStrictEqual(stored, [{ id: second }])

      noContent(yield* api.request("POST", `/channels/${channelId}/pins/ack`, { token: pinner.token }))
      const acked = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM channel_pin_acks WHERE user_id = $1 AND channel_id = $2", [pinner.userId, channelId])
      assert.strictEqual(acked[0]?.n, 1)
    }))

  it.effect("a message older than the window is pinned through Postgres; the pin limit holds", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const old = yield* sent(owner.token, channelId, "old")
      // 250 newer messages: the old one leaves the window, the pin limit can be reached.
      yield* queryAt(api.databaseUrl, `INSERT INTO messages (channel_id, id, guild_id, author_id, content, created_at, pinned, pinned_at)
        SELECT $1::bigint, $2::bigint + n, $3::bigint, $4::bigint, 'filler', now(), n <= 249, now() - interval '1 hour'
        FROM generate_series(1, 250) AS n`, [channelId, old, guildId, owner.userId])
      yield* reload(guildId)
      noContent(yield* pin(owner.token, channelId, old))
      const newest = yield* pinsOf(owner.token, channelId, "?limit=1")
      assert.deepStrictEqual(newest.ids, [old])
      const full = yield* pin(owner.token, channelId, (BigInt(old) + 250n).toString())
      expectError(full, 400, "MAX_PINS_PER_CHANNEL")
      noContent(yield* pin(owner.token, channelId, old, "DELETE"))
      noContent(yield* pin(owner.token, channelId, (BigInt(old) + 250n).toString()))
      expectError(yield* pin(owner.token, channelId, "42"), 404, "UNKNOWN_MESSAGE")
    }))

  it.effect("bad input and forbidden: paging bounds, PIN_MESSAGES or MANAGE_MESSAGES, READ_MESSAGE_HISTORY", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { owner, guildId, channelId } = yield* guildWithChannel
      const reader = yield* memberWith(guildId, CHAT)
      const moderator = yield* memberWith(guildId, CHAT | Permission.MANAGE_MESSAGES)
      const blind = yield* memberWith(guildId, Permission.VIEW_CHANNEL | Permission.PIN_MESSAGES)
      const id = yield* sent(owner.token, channelId, "target")
      const list = (query: string) => api.request("GET", `/channels/${channelId}/messages/pins${query}`, { token: owner.token })
      expectError(yield* list("?limit=0"), 400, "INVALID_FORM_BODY")
      expectError(yield* list("?limit=51"), 400, "INVALID_FORM_BODY")
      const badCursor = yield* list("?before=yesterday")
      expectError(badCursor, 400, "INVALID_FORM_BODY")
      assert.strictEqual(fieldCode(badCursor), "INVALID_ISO_TIMESTAMP")
      expectError(yield* pin(owner.token, channelId, "abc"), 400, "INVALID_FORM_BODY")

      expectError(yield* pin(reader.token, channelId, id), 403, "MISSING_PERMISSIONS")
      expectError(yield* pin(blind.token, channelId, id), 403, "MISSING_PERMISSIONS")
      expectError(yield* api.request("GET", `/channels/${channelId}/messages/pins`, { token: blind.token }), 403, "MISSING_PERMISSIONS")
      noContent(yield* pin(moderator.token, channelId, id))
      expectError(yield* pin(reader.token, channelId, id, "DELETE"), 403, "MISSING_PERMISSIONS")
      const stranger = yield* api.register()
      expectError(yield* api.request("POST", `/channels/${channelId}/pins/ack`, { token: stranger.token }), 403, "MISSING_ACCESS")
      assert.deepStrictEqual((yield* pinsOf(reader.token, channelId)).ids, [id])
    }))

  it.effect("pinning and unpinning reach the gateway as MESSAGE_UPDATE and CHANNEL_PINS_UPDATE", () =>
    Effect.gen(function*() {
      const { owner, guildId, channelId } = yield* guildWithChannel
      const id = yield* sent(owner.token, channelId, "watched")
      const { client } = yield* identified(owner.token)
      assert.strictEqual((yield* client.dispatch).t, "GUILD_CREATE")

      noContent(yield* pin(owner.token, channelId, id))
      const update = yield* client.dispatch
      assert.strictEqual(update.t, "MESSAGE_UPDATE")
      expect(update.d).toMatchObject({ id, channel_id: channelId, guild_id: guildId, pinned: true })
      const pins = yield* client.dispatch
      assert.strictEqual(pins.t, "CHANNEL_PINS_UPDATE")
      expect(pins.d).toMatchObject({ channel_id: channelId, guild_id: guildId })
      assert.isString((pins.d as { last_pin_timestamp: unknown }).last_pin_timestamp)

      noContent(yield* pin(owner.token, channelId, id, "DELETE"))
      expect((yield* client.dispatch).d).toMatchObject({ id, pinned: false })
      const cleared = yield* client.dispatch
      assert.strictEqual(cleared.t, "CHANNEL_PINS_UPDATE")
      assert.deepStrictEqual(cleared.d, { guild_id: guildId, channel_id: channelId, last_pin_timestamp: null })
    }))
})
