import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { auditEntries } from "../support/Audit.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { addMember, cast, createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"
import { createInvite, eventuallyGuilds } from "./Fixtures.ts"

/** Changes the guild in Postgres and has its actor reload: set-ups no endpoint of this domain makes. */
const changeGuild = (guildId: string, statement: string) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    yield* queryAt(api.databaseUrl, statement, [guildId])
    const reload = yield* api.request("POST", "/admin/guilds/reload", { token: `Admin ${api.adminKey}`, body: { guild_id: guildId } })
    assert.strictEqual(reload.status, 200)
  })

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guild invites over HTTP", (it) => {
  it.effect("creates, lists, shows and deletes invites, with audit entries", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const created = yield* api.request("POST", `/channels/${channelId}/invites`, {
        token: owner.token,
        body: { max_age: 600, max_uses: 5 },
        headers: { "x-audit-log-reason": "for friends" }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const code = field(created.body, "code")
      assert.match(code, /^[A-Za-z0-9]{8}$/)
      expect(created.body).toMatchObject({
        type: 0,
        guild: { id: guildId, name: "The Hall" },
        channel: { id: channelId, name: "general", type: 0 },
        inviter: { id: owner.userId },
        max_age: 600,
        max_uses: 5,
        uses: 0,
        temporary: false,
        member_count: 1
      })
      const again = yield* api.request("POST", `/channels/${channelId}/invites`, { token: owner.token, body: { max_age: 600, max_uses: 5 } })
      assert.strictEqual(field(again.body, "code"), code)
      const unique = yield* createInvite(owner.token, channelId, { max_age: 600, max_uses: 5 })
      assert.notStrictEqual(unique, code)

      const byChannel = yield* api.request("GET", `/channels/${channelId}/invites`, { token: owner.token })
      assert.strictEqual(byChannel.status, 200)
      expect((byChannel.body as ReadonlyArray<{ code: string }>).map((i) => i.code).sort()).toEqual([code, unique].sort())
      const byGuild = yield* api.request("GET", `/guilds/${guildId}/invites`, { token: owner.token })
      expect(byGuild.body).toHaveLength(2)
      const shown = yield* api.request("GET", `/invites/${code}?with_counts=true`)
      assert.strictEqual(shown.status, 200)
      expect(shown.body).toMatchObject({ code, guild: { id: guildId }, member_count: 1, inviter: { id: owner.userId } })
      assert.isUndefined((shown.body as Record<string, unknown>).uses)

      const deleted = yield* api.request("DELETE", `/invites/${code}`, { token: owner.token })
      assert.strictEqual(deleted.status, 204)
      const missing = yield* api.request("GET", `/invites/${code}`)
      expectError(missing, 404, "UNKNOWN_INVITE")
      const entries = yield* auditEntries(guildId)
      expect(entries.filter((e) => e.action_type === 40 || e.action_type === 42)).toMatchObject([
        { action_type: 42, target_id: code, user_id: owner.userId },
        { action_type: 40, target_id: unique },
        { action_type: 40, target_id: code, reason: "for friends" }
      ])
    }))

  it("joins through an invite: member added with its source, uses counted, max_uses respected", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const joiner = yield* api.register()
      const late = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const code = yield* createInvite(owner.token, channelId, { max_uses: 1 })
      const joined = yield* api.request("POST", `/invites/${code}`, { token: joiner.token })
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
      expect(joined.body).toMatchObject({ code, guild: { id: guildId }, member_count: 2 })
      const member = yield* api.request("GET", `/guilds/${guildId}/members/@me`, { token: joiner.token })
      assert.strictEqual(member.status, 200)
      const [row] = yield* queryAt(
        api.databaseUrl,
        "SELECT join_source_type, source_invite_code, inviter_id::text AS inviter_id FROM guild_members WHERE guild_id = $1 AND user_id = $2",
        [guildId, joiner.userId]
      )
      assert.deepStrictEqual(row, { join_source_type: 1, source_invite_code: code, inviter_id: owner.userId })
      const [invite] = yield* queryAt(api.databaseUrl, "SELECT uses FROM guild_invites WHERE code = $1", [code])
      assert.strictEqual(invite?.uses, 1)
      assert.include(yield* eventuallyGuilds(joiner.token, (ids) => ids.includes(guildId)), guildId)
      const usedUp = yield* api.request("POST", `/invites/${code}`, { token: late.token })
      expectError(usedUp, 404, "UNKNOWN_INVITE")
      const unknownCode = yield* api.request("POST", "/invites/nosuchcode", { token: late.token })
      assert.strictEqual(unknownCode.status, 404)
    }))

  it("lets an invite expire after max_age and respects INVITES_DISABLED", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const joiner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      const brief = yield* createInvite(owner.token, channelId, { max_age: 1 })
      const lasting = yield* createInvite(owner.token, channelId, { max_age: 0 })
      yield* Effect.sleep("1100 millis")
      const expired = yield* api.request("POST", `/invites/${brief}`, { token: joiner.token })
      expect(expired.body).toMatchObject({ code: "UNKNOWN_INVITE" })
      const listed = yield* api.request("GET", `/guilds/${guildId}/invites`, { token: owner.token })
      expect(listed.body).toMatchObject([{ code: lasting, max_age: 0, expires_at: null }])

      yield* changeGuild(guildId, "UPDATE guilds SET features = '{INVITES_DISABLED}' WHERE id = $1")
      const disabled = yield* api.request("POST", `/invites/${lasting}`, { token: joiner.token })
      expectError(disabled, 403, "INVITES_DISABLED")
      const noNew = yield* api.request("POST", `/channels/${channelId}/invites`, { token: owner.token, body: {} })
      expect(noNew.body).toMatchObject({ code: "INVITES_DISABLED" })
    }))

  it("joins through the guild's vanity URL", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const joiner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const vanity = `hall-${guildId.slice(-8)}`
      const set = yield* api.request("PATCH", `/guilds/${guildId}/vanity-url`, { token: owner.token, body: { code: vanity } })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      const shown = yield* api.request("GET", `/invites/${vanity}`)
      expect(shown.body).toMatchObject({ code: vanity, guild: { id: guildId }, inviter: null, expires_at: null })
      const joined = yield* api.request("POST", `/invites/${vanity}`, { token: joiner.token })
      assert.strictEqual(joined.status, 200, JSON.stringify(joined.body))
      const [row] = yield* queryAt(api.databaseUrl, "SELECT join_source_type FROM guild_members WHERE guild_id = $1 AND user_id = $2", [
        guildId,
        joiner.userId
      ])
      assert.strictEqual(row?.join_source_type, 2)
      const cannotDelete = yield* api.request("DELETE", `/invites/${vanity}`, { token: owner.token })
      assert.strictEqual(cannotDelete.status, 404)
    }))

  it("validates the create body and the code: 400", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId } = yield* createGuild(owner.token)
      for (const body of [{ max_uses: 101 }, { max_age: 604801 }, { max_age: -1 }, { temporary: "yes" }]) {
        const reply = yield* api.request("POST", `/channels/${channelId}/invites`, { token: owner.token, body })
        assert.strictEqual(reply.status, 400, JSON.stringify(body))
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
      }
      const badChannel = yield* api.request("POST", "/channels/x/invites", { token: owner.token, body: {} })
      assert.strictEqual(badChannel.status, 400)
      const noChannel = yield* api.request("POST", "/channels/1234567890123/invites", { token: owner.token, body: {} })
      expect(noChannel.body).toMatchObject({ code: "UNKNOWN_CHANNEL" })
      const badCode = yield* api.request("GET", `/invites/${"x".repeat(40)}`)
      assert.strictEqual(badCode.status, 400)
    }))

  it("needs CREATE_INSTANT_INVITE, MANAGE_CHANNELS or MANAGE_GUILD: 403", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger, guildId, channelId } = yield* cast()
      const manager = yield* api.register()
      yield* addMember(guildId, manager.userId, Permission.MANAGE_GUILD)
      const code = yield* createInvite(owner.token, channelId)

      const outside = yield* api.request("POST", `/channels/${channelId}/invites`, { token: stranger.token, body: {} })
      expect(outside.body).toMatchObject({ code: "MISSING_ACCESS" })
      for (const [method, path] of [
        ["GET", `/channels/${channelId}/invites`],
        ["GET", `/guilds/${guildId}/invites`],
        ["DELETE", `/invites/${code}`]
      ] as const) {
        const reply = yield* api.request(method, path, { token: member.token })
        assert.strictEqual(reply.status, 403, path)
        expect(reply.body).toMatchObject({ code: "MISSING_PERMISSIONS" })
      }
      const mine = yield* createInvite(member.token, channelId)
      assert.strictEqual((yield* api.request("GET", `/guilds/${guildId}/invites`, { token: manager.token })).status, 200)
      assert.strictEqual((yield* api.request("DELETE", `/invites/${mine}`, { token: manager.token })).status, 204)

      yield* changeGuild(guildId, "UPDATE guild_roles SET permissions = 0 WHERE id = $1")
      const refused = yield* api.request("POST", `/channels/${channelId}/invites`, { token: member.token, body: {} })
      expectError(refused, 403, "MISSING_PERMISSIONS")
      const entries = yield* auditEntries(guildId)
      expect(entries.filter((e) => e.action_type === 42)).toMatchObject([{ target_id: mine, user_id: manager.userId }])
    }))
})
