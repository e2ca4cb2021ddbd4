import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { dataOf, identified, nextMatching } from "../../gateway/Client.ts"
import { eventuallyGuilds } from "../../invites/Fixtures.ts"
import { expectError, field, TestApi } from "../../support/Api.ts"
import { auditEntries } from "../../support/Audit.ts"
import { queryAt } from "../../support/Postgres.ts"
import { adminLogs, adminOk, adminToken, asAdmin, guildWith, operatorId } from "./Fixtures.ts"

const about = (userId: string) => (d: unknown) => JSON.stringify(d).includes(`"id":"${userId}"`)

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("admin guild memberships", (it) => {
  it.effect("ban-member: members' sessions see the ban and the removal; the messages of those days go", () =>
    Effect.gen(function*() {
      const { api, owner, members, guildId, channelId } = yield* guildWith(1)
      const [member] = members
      if (member === undefined) throw new Error("no member")
      const posted = yield* api.request("POST", `/channels/${channelId}/messages`, { token: member.token, body: { content: "spam" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const session = (yield* identified(owner.token)).client

      yield* adminOk("/admin/guilds/ban-member", {
        guild_id: guildId,
        user_id: member.userId,
        delete_message_days: 1,
        reason: "spam"
      }, 204)
      const ban = yield* nextMatching(session, "GUILD_BAN_ADD", about(member.userId))
      expect(dataOf(ban)).toMatchObject({ guild_id: guildId, user: { id: member.userId } })
      yield* nextMatching(session, "GUILD_MEMBER_REMOVE", about(member.userId))

      const operator = yield* operatorId
      const bans = yield* api.request("GET", `/guilds/${guildId}/bans`, { token: owner.token })
      expect(bans.body).toMatchObject([{ user: { id: member.userId }, reason: "spam", moderator_id: operator }])
      const message = yield* api.request("GET", `/channels/${channelId}/messages/${field(posted.body, "id")}`, { token: owner.token })
      assert.strictEqual(message.status, 404, JSON.stringify(message.body))
      assert.notInclude(yield* eventuallyGuilds(member.token, (ids) => !ids.includes(guildId)), guildId)
      expect(yield* auditEntries(guildId)).toEqual(expect.arrayContaining([
        expect.objectContaining({ action_type: 22, target_id: member.userId, user_id: operator })
      ]))
      expect(yield* adminLogs(member.userId)).toEqual(expect.arrayContaining([
        expect.objectContaining({ action: "guild.ban_member", admin_user_id: operator })
      ]))

      expectError(yield* asAdmin("/admin/guilds/ban-member", { guild_id: guildId, user_id: owner.userId }), 403, "MISSING_PERMISSIONS")
      expectError(yield* asAdmin("/admin/guilds/ban-member", { guild_id: guildId, user_id: "1" }), 404, "UNKNOWN_USER")
      expectError(yield* asAdmin("/admin/guilds/ban-member", { guild_id: "1", user_id: member.userId }), 404, "UNKNOWN_GUILD")
    }))

  it.effect("ban-member keeps the messages under a legal hold", () =>
    Effect.gen(function*() {
      const { api, owner, members, guildId, channelId } = yield* guildWith(1)
      const [member] = members
      if (member === undefined) throw new Error("no member")
      const post = (content: string) =>
        Effect.map(api.request("POST", `/channels/${channelId}/messages`, { token: member.token, body: { content } }), (r) => {
          assert.strictEqual(r.status, 200, JSON.stringify(r.body))
          return field(r.body, "id")
        })
      const held = yield* post("evidence")
      const loose = yield* post("noise")
      yield* queryAt(api.databaseUrl, "INSERT INTO legal_hold_messages (message_id, report_id) VALUES ($1, 1)", [held])
      yield* adminOk("/admin/guilds/ban-member", { guild_id: guildId, user_id: member.userId, delete_message_days: 7 }, 204)
      const read = (id: string) => api.request("GET", `/channels/${channelId}/messages/${id}`, { token: owner.token })
      assert.strictEqual((yield* read(loose)).status, 404)
      expect((yield* read(held)).body).toMatchObject({ id: held, content: "evidence" })
      // Not just the actor's memory: Postgres kept it too.
      yield* adminOk("/admin/guilds/reload", { guild_id: guildId })
      expect((yield* read(held)).body).toMatchObject({ id: held, content: "evidence" })
    }))

  it.effect("kick-member: the member leaves, sessions see it; the owner and strangers cannot be kicked", () =>
    Effect.gen(function*() {
      const { api, owner, members, guildId } = yield* guildWith(1)
      const [member] = members
      if (member === undefined) throw new Error("no member")
      const session = (yield* identified(owner.token)).client
      const kicked = yield* api.request("POST", "/admin/guilds/kick-member", {
        token: yield* adminToken,
        body: { guild_id: guildId, user_id: member.userId },
        headers: { "x-audit-log-reason": "rule%201" }
      })
      assert.strictEqual(kicked.status, 204, JSON.stringify(kicked.body))
      yield* nextMatching(session, "GUILD_MEMBER_REMOVE", about(member.userId))
      const gone = yield* api.request("GET", `/guilds/${guildId}/members/${member.userId}`, { token: owner.token })
      expectError(gone, 404, "UNKNOWN_MEMBER")
      assert.notInclude(yield* eventuallyGuilds(member.token, (ids) => !ids.includes(guildId)), guildId)
      expect(yield* auditEntries(guildId)).toEqual(expect.arrayContaining([
        expect.objectContaining({ action_type: 20, target_id: member.userId, user_id: yield* operatorId, reason: "rule 1" })
      ]))
      expect(yield* adminLogs(member.userId)).toEqual(expect.arrayContaining([
        expect.objectContaining({ action: "guild.kick_member", audit_log_reason: "rule 1" })
      ]))
      expectError(yield* asAdmin("/admin/guilds/kick-member", { guild_id: guildId, user_id: member.userId }), 404, "UNKNOWN_MEMBER")
      expectError(yield* asAdmin("/admin/guilds/kick-member", { guild_id: guildId, user_id: owner.userId }), 403, "MISSING_PERMISSIONS")
    }))

  it.effect("force-add-user: the user joins as if they had; members see GUILD_MEMBER_ADD; adding again changes nothing", () =>
    Effect.gen(function*() {
      const { api, owner, guildId } = yield* guildWith(0)
      const user = yield* api.register()
      const session = (yield* identified(owner.token)).client
      assert.deepStrictEqual(yield* adminOk("/admin/guilds/force-add-user", { guild_id: guildId, user_id: user.userId }), { success: true })
      const added = yield* nextMatching(session, "GUILD_MEMBER_ADD", about(user.userId))
      expect(dataOf(added)).toMatchObject({ guild_id: guildId, user: { id: user.userId } })
      assert.include(yield* eventuallyGuilds(user.token, (ids) => ids.includes(guildId)), guildId)
      const seen = yield* api.request("GET", `/guilds/${guildId}`, { token: user.token })
      assert.strictEqual(seen.status, 200, JSON.stringify(seen.body))
      yield* adminOk("/admin/guilds/force-add-user", { guild_id: guildId, user_id: user.userId })
      expect(yield* adminOk("/admin/guilds/list-members", { guild_id: guildId })).toMatchObject({ total: 2 })
      expect(yield* adminLogs(user.userId)).toEqual(expect.arrayContaining([
        expect.objectContaining({ action: "guild.force_add_user", metadata: { guild_id: guildId } })
      ]))
      expectError(yield* asAdmin("/admin/guilds/force-add-user", { guild_id: guildId, user_id: "1" }), 404, "UNKNOWN_USER")
      expectError(yield* asAdmin("/admin/guilds/force-add-user", { guild_id: "1", user_id: user.userId }), 404, "UNKNOWN_GUILD")
    }))

  it.effect("bulk add-guild-members: an unknown user fails alone", () =>
    Effect.gen(function*() {
      const { api, guildId } = yield* guildWith(0)
      const first = yield* api.register()
      const second = yield* api.register()
      const body = yield* adminOk("/admin/bulk/add-guild-members", { guild_id: guildId, user_ids: [first.userId, "1", second.userId] })
      assert.deepStrictEqual(body, { successful: [first.userId, second.userId], failed: [{ id: "1", error: "UNKNOWN_USER" }] })
      expect(yield* adminOk("/admin/guilds/list-members", { guild_id: guildId })).toMatchObject({ total: 3 })
      expectError(yield* asAdmin("/admin/bulk/add-guild-members", { guild_id: "1", user_ids: [first.userId] }), 404, "UNKNOWN_GUILD")
    }))

  it.effect("delete: members' sessions see GUILD_DELETE; the guild is gone for everyone", () =>
    Effect.gen(function*() {
      const { api, members, guildId, channelId } = yield* guildWith(1)
      const [member] = members
      if (member === undefined) throw new Error("no member")
      const session = (yield* identified(member.token)).client
      // A message under a legal hold keeps the guild until the hold is released.
      const posted = yield* api.request("POST", `/channels/${channelId}/messages`, { token: member.token, body: { content: "kept" } })
      assert.strictEqual(posted.status, 200, JSON.stringify(posted.body))
      const held = field(posted.body, "id")
      yield* queryAt(api.databaseUrl, "INSERT INTO legal_hold_messages (message_id, report_id) VALUES ($1, 2)", [held])
      expectError(yield* asAdmin("/admin/guilds/delete", { guild_id: guildId }), 403, "RESOURCE_LOCKED")
      yield* queryAt(api.databaseUrl, "DELETE FROM legal_hold_messages WHERE message_id = $1", [held])
      assert.deepStrictEqual(yield* adminOk("/admin/guilds/delete", { guild_id: guildId }), { success: true })
      yield* nextMatching(session, "GUILD_DELETE", (d) => JSON.stringify(d).includes(guildId))
      assert.deepStrictEqual(yield* adminOk("/admin/guilds/lookup", { guild_id: guildId }), { guild: null })
      assert.notInclude(yield* eventuallyGuilds(member.token, (ids) => !ids.includes(guildId)), guildId)
      expect(yield* adminLogs(guildId)).toEqual(expect.arrayContaining([expect.objectContaining({ action: "guild.delete" })]))
      expectError(yield* asAdmin("/admin/guilds/delete", { guild_id: guildId }), 404, "UNKNOWN_GUILD")
    }))

  it.effect("bulk update-guild-features: an unknown guild fails alone", () =>
    Effect.gen(function*() {
      const a = yield* guildWith(0)
      const b = yield* guildWith(0)
      const body = yield* adminOk("/admin/bulk/update-guild-features", {
        guild_ids: [a.guildId, "1", b.guildId],
        add_features: ["VERIFIED"]
      })
      assert.deepStrictEqual(body, { successful: [a.guildId, b.guildId], failed: [{ id: "1", error: "UNKNOWN_GUILD" }] })
      for (const guildId of [a.guildId, b.guildId]) {
        expect(yield* adminOk("/admin/guilds/lookup", { guild_id: guildId })).toMatchObject({ guild: { features: expect.arrayContaining(["VERIFIED"]) } })
      }
    }))
})
