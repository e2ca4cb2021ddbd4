import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { auditEntries } from "../support/Audit.ts"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guilds over HTTP", (it) => {
  it.effect("creates a guild with its @everyone role, a text channel and the owner as member", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId: id, body } = yield* createGuild(owner.token)
      expect(body).toMatchObject({
        name: "The Hall",
        owner_id: owner.userId,
        member_count: 1,
        // @everyone's default bits as the wire has them, written out rather than taken from the
        // model: a change to the default must show up here.
        roles: [{ id, name: "@everyone", permissions: "8933636165185" }],
        channels: [{ type: 0, name: "general", guild_id: id }]
      })
      const got = yield* api.request("GET", `/v1/guilds/${id}`, { token: owner.token })
      assert.strictEqual(got.status, 200)
      assert.deepStrictEqual(got.body, body)

      const members = yield* api.request("GET", `/guilds/${id}/members?limit=10`, { token: owner.token })
      assert.strictEqual(members.status, 200)
      expect(members.body).toMatchObject([{ user: { id: owner.userId }, roles: [], mute: false }])
      const mine = yield* api.request("GET", `/guilds/${id}/members/@me`, { token: owner.token })
      expect(mine.body).toMatchObject({ user: { id: owner.userId } })
      const byId = yield* api.request("GET", `/guilds/${id}/members/${owner.userId}`, { token: owner.token })
      assert.deepStrictEqual(byId.body, mine.body)
      const notMember = yield* api.request("GET", `/guilds/${id}/members/123`, { token: owner.token })
      expectError(notMember, 404, "UNKNOWN_MEMBER")

      const list = yield* api.request("GET", "/users/@me/guilds", { token: owner.token })
      assert.strictEqual(list.status, 200)
      expect(list.body).toMatchObject([{ id }])
    }))

  it.effect("updates settings, checks them against the guild and keeps them", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId: id } = yield* createGuild(owner.token)
      const patched = yield* api.request("PATCH", `/guilds/${id}`, {
        token: owner.token,
        headers: { "x-audit-log-reason": encodeURIComponent("spring cleaning ✨") },
        body: { name: "Renamed", afk_timeout: 900, verification_level: 2, content_warning_text: "careful" }
      })
      assert.strictEqual(patched.status, 200)
      expect(patched.body).toMatchObject({ name: "Renamed", afk_timeout: 900, verification_level: 2, content_warning_text: "careful" })
      // The change is in the audit log, with what changed and why.
      const [entry] = yield* auditEntries(id)
      expect(entry).toMatchObject({ user_id: owner.userId, action_type: 1, target_id: id, reason: "spring cleaning ✨" })
      expect(entry?.changes).toContainEqual({ key: "name", old_value: "The Hall", new_value: "Renamed" })

      const elsewhere = yield* api.request("PATCH", `/guilds/${id}`, { token: owner.token, body: { system_channel_id: "123" } })
      assert.strictEqual(elsewhere.status, 400)
      expect(elsewhere.body).toMatchObject({ errors: [{ path: "system_channel_id", code: "SYSTEM_CHANNEL_MUST_BE_IN_GUILD" }] })
      const future = yield* api.request("PATCH", `/guilds/${id}`, {
        token: owner.token,
        body: { message_history_cutoff: "2999-01-01T00:00:00Z" }
      })
      expect(future.body).toMatchObject({ errors: [{ code: "MESSAGE_HISTORY_CUTOFF_IN_FUTURE" }] })
      const outOfRange = yield* api.request("PATCH", `/guilds/${id}`, { token: owner.token, body: { afk_timeout: 5 } })
      assert.strictEqual(outOfRange.status, 400)

      const again = yield* api.request("GET", `/guilds/${id}`, { token: owner.token })
      expect(again.body).toMatchObject({ name: "Renamed", afk_timeout: 900 })
    }))

  it.effect("keeps non-members out: 403 MISSING_ACCESS, 404 UNKNOWN_GUILD for no guild", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const stranger = yield* api.register()
      const { guildId: id } = yield* createGuild(owner.token)
      for (const [method, path] of [["GET", `/guilds/${id}`], ["GET", `/guilds/${id}/members`], ["GET", `/guilds/${id}/members/@me`]] as const) {
        const reply = yield* api.request(method, path, { token: stranger.token })
        assert.strictEqual(reply.status, 403, path)
        expect(reply.body).toMatchObject({ code: "MISSING_ACCESS" })
      }
      const patch = yield* api.request("PATCH", `/guilds/${id}`, { token: stranger.token, body: { name: "mine now" } })
      assert.strictEqual(patch.status, 403)
      const missing = yield* api.request("GET", "/guilds/1234567890123", { token: owner.token })
      expectError(missing, 404, "UNKNOWN_GUILD")
      const noToken = yield* api.request("GET", `/guilds/${id}`)
      assert.strictEqual(noToken.status, 401)
    }))

  it.effect("validates the create body: name 1 to 100 characters", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      for (const name of ["", "x".repeat(101)]) {
        const reply = yield* api.request("POST", "/guilds", { token: owner.token, body: { name } })
        assert.strictEqual(reply.status, 400)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "name", code: "STRING_LENGTH_INVALID" }] })
      }
      const missing = yield* api.request("POST", "/guilds", { token: owner.token, body: {} })
      assert.strictEqual(missing.status, 400)
    }))

  it.effect("pages members with limit and after", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId: id } = yield* createGuild(owner.token)
      const after = yield* api.request("GET", `/guilds/${id}/members?after=${owner.userId}`, { token: owner.token })
      assert.deepStrictEqual(after.body, [])
      const badLimit = yield* api.request("GET", `/guilds/${id}/members?limit=0`, { token: owner.token })
      assert.strictEqual(badLimit.status, 400)
      const tooMany = yield* api.request("GET", `/guilds/${id}/members?limit=1001`, { token: owner.token })
      assert.strictEqual(tooMany.status, 400)
    }))
})

// Reads in the actor's own process skip its mailbox (src/guilds/Actors.ts); with that off,
// every read is a message to the actor, as in cluster mode. Both must answer the same.
layer(TestApi.layerWith({ ACTOR_LOCAL_READS: "off" }), { timeout: 120_000, excludeTestServices: true })(
  "guild reads through the actor's mailbox",
  (it) => {
    it.effect("answer what the write answered, and refuse strangers", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const owner = yield* api.register()
        const stranger = yield* api.register()
        const { guildId: id, body } = yield* createGuild(owner.token)
        const got = yield* api.request("GET", `/guilds/${id}`, { token: owner.token })
        assert.deepStrictEqual(got.body, body)
        const mine = yield* api.request("GET", `/guilds/${id}/members/@me`, { token: owner.token })
        expect(mine.body).toMatchObject({ user: { id: owner.userId } })
        const list = yield* api.request("GET", "/users/@me/guilds", { token: owner.token })
        assert.deepStrictEqual(list.body, [body])
        const refused = yield* api.request("GET", `/guilds/${id}`, { token: stranger.token })
        expectError(refused, 403, "MISSING_ACCESS")
      }))

    // A page and a message come back as the JSON text the window rendered (JsonText), unquoted.
    it.effect("answer messages and their pages as they were sent, and refuse strangers", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const owner = yield* api.register()
        const stranger = yield* api.register()
        const { channelId } = yield* createGuild(owner.token)
        const sent = []
        for (const content of ["first", "say \"hi\"\n", "ünïcode ☃"]) {
          const reply = yield* api.request("POST", `/channels/${channelId}/messages`, { token: owner.token, body: { content } })
          assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
          sent.push(reply.body)
        }
        const page = yield* api.request("GET", `/channels/${channelId}/messages?limit=50`, { token: owner.token })
        assert.strictEqual(page.status, 200)
        assert.deepStrictEqual(page.body, [...sent].reverse())
        const last = sent[2] as { id: string }
        const one = yield* api.request("GET", `/channels/${channelId}/messages/${last.id}`, { token: owner.token })
        assert.deepStrictEqual(one.body, last)
        const older = yield* api.request("GET", `/channels/${channelId}/messages?before=${last.id}&limit=1`, { token: owner.token })
        assert.deepStrictEqual(older.body, [sent[1]])
        expectError(yield* api.request("GET", `/channels/${channelId}/messages`, { token: stranger.token }), 403, "MISSING_ACCESS")
        expectError(yield* api.request("GET", `/channels/${channelId}/messages/${last.id}`, { token: stranger.token }), 403, "MISSING_ACCESS")
      }))
  }
)
