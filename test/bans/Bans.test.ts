import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { auditEntries } from "../support/Audit.ts"
import { createInvite, eventuallyGuilds, guildOfTwo } from "../invites/Fixtures.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { addMember, cast, createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guild bans over HTTP", (it) => {
  it.effect("bans a member out of the guild, lists the ban and lifts it, with audit entries", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId, code } = yield* guildOfTwo
      assert.include(yield* eventuallyGuilds(member.token, (ids) => ids.includes(guildId)), guildId)

      const banned = yield* api.request("PUT", `/guilds/${guildId}/bans/${member.userId}`, {
        token: owner.token,
        body: { reason: "spam", delete_message_days: 1 },
        headers: { "x-audit-log-reason": "cleanup" }
      })
      assert.strictEqual(banned.status, 204, JSON.stringify(banned.body))
      const list = yield* api.request("GET", `/guilds/${guildId}/bans`, { token: owner.token })
      assert.strictEqual(list.status, 200)
      expect(list.body).toMatchObject([{ user: { id: member.userId }, reason: "spam", moderator_id: owner.userId, expires_at: null }])
      const gone = yield* api.request("GET", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      expect(gone.body).toMatchObject({ code: "UNKNOWN_MEMBER" })
      const locked = yield* api.request("GET", `/guilds/${guildId}`, { token: member.token })
      assert.strictEqual(locked.status, 403)
      assert.notInclude(yield* eventuallyGuilds(member.token, (ids) => !ids.includes(guildId)), guildId)
      const rows = yield* queryAt(api.databaseUrl, "SELECT 1 FROM guild_members WHERE guild_id = $1 AND user_id = $2", [guildId, member.userId])
      assert.strictEqual(rows.length, 0)

      const lifted = yield* api.request("DELETE", `/guilds/${guildId}/bans/${member.userId}`, { token: owner.token })
      assert.strictEqual(lifted.status, 204)
      assert.deepStrictEqual((yield* api.request("GET", `/guilds/${guildId}/bans`, { token: owner.token })).body, [])
      const entries = yield* auditEntries(guildId)
      expect(entries.filter((e) => e.action_type === 22 || e.action_type === 23)).toMatchObject([
        { action_type: 23, target_id: member.userId, user_id: owner.userId },
        { action_type: 22, target_id: member.userId, user_id: owner.userId, reason: "cleanup" }
      ])
      assert.strictEqual((yield* api.request("POST", `/invites/${code}`, { token: member.token })).status, 200)
    }))

  it("refuses bad input with 400 and unknown users with 404", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const target = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      for (const body of [{ delete_message_days: 8 }, { reason: "x".repeat(513) }, { ban_duration_seconds: -1 }, { delete_message_days: "1" }]) {
        const reply = yield* api.request("PUT", `/guilds/${guildId}/bans/${target.userId}`, { token: owner.token, body })
        assert.strictEqual(reply.status, 400, JSON.stringify(body))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
      }
      const badId = yield* api.request("PUT", `/guilds/${guildId}/bans/abc`, { token: owner.token, body: {} })
      assert.strictEqual(badId.status, 400)
      const nobody = yield* api.request("PUT", `/guilds/${guildId}/bans/1234567890123`, { token: owner.token, body: {} })
      expectError(nobody, 404, "UNKNOWN_USER")
      assert.deepStrictEqual((yield* api.request("GET", `/guilds/${guildId}/bans`, { token: owner.token })).body, [])
    }))

  it("needs BAN_MEMBERS and a higher rank, and never bans the owner", () =>
    Effect.gen(function*() {
      const { api, owner, member: plain, stranger, guildId } = yield* cast()
      const moderator = yield* api.register()
      const peer = yield* api.register()
      yield* addMember(guildId, moderator.userId, Permission.BAN_MEMBERS)
      yield* addMember(guildId, peer.userId, Permission.BAN_MEMBERS)

      for (const [method, path] of [
        ["GET", `/guilds/${guildId}/bans`],
        ["PUT", `/guilds/${guildId}/bans/${moderator.userId}`],
        ["DELETE", `/guilds/${guildId}/bans/${moderator.userId}`]
      ] as const) {
        const reply = yield* api.request(method, path, { token: plain.token, body: method === "PUT" ? {} : undefined })
        assert.strictEqual(reply.status, 403, path)
        expect(reply.body).toMatchObject({ code: "MISSING_PERMISSIONS" })
      }
      const outside = yield* api.request("GET", `/guilds/${guildId}/bans`, { token: stranger.token })
      expect(outside.body).toMatchObject({ code: "MISSING_ACCESS" })
      const theOwner = yield* api.request("PUT", `/guilds/${guildId}/bans/${owner.userId}`, { token: moderator.token, body: {} })
      assert.strictEqual(theOwner.status, 403)
      const sameRank = yield* api.request("PUT", `/guilds/${guildId}/bans/${peer.userId}`, { token: moderator.token, body: {} })
      assert.strictEqual(sameRank.status, 403)
      const below = yield* api.request("PUT", `/guilds/${guildId}/bans/${plain.userId}`, { token: moderator.token, body: {} })
      assert.strictEqual(below.status, 204)
      const entries = yield* auditEntries(guildId)
      expect(entries.filter((e) => e.action_type === 22)).toMatchObject([{ target_id: plain.userId, user_id: moderator.userId }])
    }))

  it("refuses a banned user's join, and admits them again once a temporary ban expires", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const user = yield* api.register()
      const permanent = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const code = yield* createInvite(owner.token, channelId)
      const temp = yield* api.request("PUT", `/guilds/${guildId}/bans/${user.userId}`, {
        token: owner.token,
        body: { ban_duration_seconds: 1 }
      })
      assert.strictEqual(temp.status, 204)
      yield* api.request("PUT", `/guilds/${guildId}/bans/${permanent.userId}`, { token: owner.token, body: {} })
      const list = yield* api.request("GET", `/guilds/${guildId}/bans`, { token: owner.token })
      expect(list.body).toHaveLength(2)
      const refused = yield* api.request("POST", `/invites/${code}`, { token: user.token })
      expectError(refused, 403, "USER_BANNED_FROM_GUILD")

      yield* Effect.sleep("1200 millis")
      const afterExpiry = yield* api.request("GET", `/guilds/${guildId}/bans`, { token: owner.token })
      expect(afterExpiry.body).toMatchObject([{ user: { id: permanent.userId } }])
      const joined = yield* api.request("POST", `/invites/${code}`, { token: user.token })
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
      const member = yield* api.request("GET", `/guilds/${guildId}/members/${user.userId}`, { token: owner.token })
      assert.strictEqual(member.status, 200)
      const row = yield* queryAt(api.databaseUrl, "SELECT 1 FROM guild_bans WHERE guild_id = $1 AND user_id = $2", [guildId, user.userId])
      assert.strictEqual(row.length, 0)
      const still = yield* api.request("POST", `/invites/${code}`, { token: permanent.token })
      expect(still.body).toMatchObject({ code: "USER_BANNED_FROM_GUILD" })
    }))
})
