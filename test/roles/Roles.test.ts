import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { auditEntriesOfType } from "../support/Audit.ts"
import { createGuild, joinGuild, reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

/** An owner, a moderator holding a MANAGE_ROLES role (position 2 after a helper role is made), and a plain member. */
const setup = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const moderator = yield* api.register()
  const plain = yield* api.register()
  const { guildId } = yield* createGuild(owner.token)
  yield* joinGuild(guildId, moderator.userId)
  yield* joinGuild(guildId, plain.userId)
  yield* reload(guildId)
  const modRole = yield* api.request("POST", `/guilds/${guildId}/roles`, {
    token: owner.token,
    body: { name: "moderators", permissions: (Permission.MANAGE_ROLES | Permission.SEND_MESSAGES).toString() }
  })
  assert.strictEqual(modRole.status, 200, JSON.stringify(modRole.body))
  const modRoleId = field(modRole.body, "id")
  const grant = yield* api.request("PUT", `/guilds/${guildId}/members/${moderator.userId}/roles/${modRoleId}`, { token: owner.token })
  assert.strictEqual(grant.status, 204, JSON.stringify(grant.body))
  const lower = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "helpers" } })
  return { api, owner, moderator, plain, guildId, modRoleId, lowerRoleId: field(lower.body, "id") }
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("roles over HTTP", (it) => {
  it.effect("create and list roles: @everyone's bits by default, audit 30 with the reason, 400 on bad input", () =>
    Effect.gen(function*() {
      const { api, owner, moderator, plain, guildId, modRoleId, lowerRoleId } = yield* setup
      const listed = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: plain.token })
      assert.strictEqual(listed.status, 200)
      expect(listed.body).toMatchObject([
        { id: modRoleId, name: "moderators", position: 2 },
        // @everyone's default bits, written out as in test/guilds/Guilds.test.ts.
        { id: lowerRoleId, name: "helpers", position: 1, permissions: "8933636165185" },
        { id: guildId, name: "@everyone", position: 0 }
      ])

      const made = yield* api.request("POST", `/guilds/${guildId}/roles`, {
        token: moderator.token,
        body: { name: "artists", color: 0xff0000, permissions: Permission.SEND_MESSAGES.toString() },
        headers: { "x-audit-log-reason": "new team" }
      })
      assert.strictEqual(made.status, 200, JSON.stringify(made.body))
      expect(made.body).toMatchObject({ name: "artists", color: 0xff0000, permissions: Permission.SEND_MESSAGES.toString(), position: 1, hoist: false, mentionable: false })
      const entries = yield* auditEntriesOfType(guildId, 30)
      expect(entries.at(-1)).toMatchObject({
        user_id: moderator.userId,
        target_id: field(made.body, "id"),
        reason: "new team",
        changes: expect.arrayContaining([{ key: "name", new_value: "artists" }, { key: "permissions", new_value: "2048" }])
      })

      const tooBright = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "x", color: 0x1000000 } })
      assert.strictEqual(tooBright.status, 400)
      expect(tooBright.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "color", code: "COLOR_VALUE_TOO_HIGH" }] })
      const nameless = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { color: 1 } })
      expectError(nameless, 400, "INVALID_FORM_BODY")
    }))

  it.effect("create: 403 without MANAGE_ROLES, for bits the actor lacks, and MISSING_ACCESS for strangers", () =>
    Effect.gen(function*() {
      const { api, moderator, plain, guildId } = yield* setup
      const stranger = yield* api.register()
      const byPlain = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: plain.token, body: { name: "mine" } })
      expectError(byPlain, 403, "MISSING_PERMISSIONS")
      const withBan = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: moderator.token, body: { name: "bans", permissions: Permission.BAN_MEMBERS.toString() } })
      expectError(withBan, 403, "MISSING_PERMISSIONS")
      const strangerRequests = [
        ["GET", `/guilds/${guildId}/roles`, undefined],
        ["POST", `/guilds/${guildId}/roles`, { name: "x" }]
      ] as const
      for (const [method, path, body] of strangerRequests) {
        const reply = yield* api.request(method, path, { token: stranger.token, body })
        expectError(reply, 403, "MISSING_ACCESS")
      }
    }))

  it.effect("update a role below you (audit 31); not your own or above; 404 UNKNOWN_ROLE; 400 bad input", () =>
    Effect.gen(function*() {
      const { api, moderator, plain, guildId, modRoleId, lowerRoleId } = yield* setup
      const renamed = yield* api.request("PATCH", `/guilds/${guildId}/roles/${lowerRoleId}`, {
        token: moderator.token,
        body: { name: "helpers+", hoist: true, mentionable: true }
      })
      assert.strictEqual(renamed.status, 200, JSON.stringify(renamed.body))
      expect(renamed.body).toMatchObject({ id: lowerRoleId, name: "helpers+", hoist: true, mentionable: true })
      const [entry] = (yield* auditEntriesOfType(guildId, 31)).slice(-1)
      expect(entry).toMatchObject({
        target_id: lowerRoleId,
        options: { role_name: "helpers+" },
        changes: expect.arrayContaining([{ key: "name", old_value: "helpers", new_value: "helpers+" }])
      })

      const own = yield* api.request("PATCH", `/guilds/${guildId}/roles/${modRoleId}`, { token: moderator.token, body: { name: "kings" } })
      expectError(own, 403, "MISSING_PERMISSIONS")
      const byPlain = yield* api.request("PATCH", `/guilds/${guildId}/roles/${lowerRoleId}`, { token: plain.token, body: { name: "x" } })
      assert.strictEqual(byPlain.status, 403)
      const unknownRole = yield* api.request("PATCH", `/guilds/${guildId}/roles/424242`, { token: moderator.token, body: { name: "x" } })
      expectError(unknownRole, 404, "UNKNOWN_ROLE")
      const bad = yield* api.request("PATCH", `/guilds/${guildId}/roles/${lowerRoleId}`, { token: moderator.token, body: { color: -1 } })
      assert.strictEqual(bad.status, 400)
      expect(bad.body).toMatchObject({ errors: [{ path: "color", code: "COLOR_VALUE_TOO_LOW" }] })

      const kept = yield* api.request("GET", `/guilds/${guildId}`, { token: plain.token })
      expect(kept.body).toMatchObject({ roles: expect.arrayContaining([expect.objectContaining({ id: lowerRoleId, name: "helpers+" })]) })
    }))

  it.effect("delete a role: members lose it, audit 32; @everyone and roles at or above you stay", () =>
    Effect.gen(function*() {
      const { api, owner, moderator, plain, guildId, modRoleId, lowerRoleId } = yield* setup
      const grant = yield* api.request("PUT", `/guilds/${guildId}/members/${plain.userId}/roles/${lowerRoleId}`, { token: moderator.token })
      assert.strictEqual(grant.status, 204)
      const above = yield* api.request("DELETE", `/guilds/${guildId}/roles/${modRoleId}`, { token: moderator.token })
      expectError(above, 403, "MISSING_PERMISSIONS")
      const everyone = yield* api.request("DELETE", `/guilds/${guildId}/roles/${guildId}`, { token: owner.token })
      expectError(everyone, 404, "UNKNOWN_ROLE")
      const badId = yield* api.request("DELETE", `/guilds/${guildId}/roles/not-a-role`, { token: owner.token })
      assert.strictEqual(badId.status, 400)

      const deleted = yield* api.request("DELETE", `/guilds/${guildId}/roles/${lowerRoleId}`, { token: moderator.token })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      const mine = yield* api.request("GET", `/guilds/${guildId}/members/@me`, { token: plain.token })
      expect(mine.body).toMatchObject({ roles: [] })
      const stored = yield* queryAt(api.databaseUrl, "SELECT roles::text[] AS roles FROM guild_members WHERE guild_id = $1 AND user_id = $2", [guildId, plain.userId])
      assert.deepStrictEqual(stored[0]?.roles, [])
      const rows = yield* queryAt(api.databaseUrl, "SELECT 1 FROM guild_roles WHERE id = $1", [lowerRoleId])
      assert.strictEqual(rows.length, 0)
      const [entry] = (yield* auditEntriesOfType(guildId, 32)).slice(-1)
      expect(entry).toMatchObject({ user_id: moderator.userId, target_id: lowerRoleId, changes: expect.arrayContaining([{ key: "name", old_value: "helpers" }]) })
    }))

  it.effect("reorder roles (audit 31 position) and hoist positions; @everyone stays put; hierarchy holds", () =>
    Effect.gen(function*() {
      const { api, owner, moderator, plain, guildId, modRoleId, lowerRoleId } = yield* setup
      const third = yield* api.request("POST", `/guilds/${guildId}/roles`, { token: owner.token, body: { name: "third" } })
      const thirdId = field(third.body, "id")
      // Order now: moderators, helpers, third (all at 1, by age). The moderator moves the two below them.
      const moved = yield* api.request("PATCH", `/guilds/${guildId}/roles`, {
        token: moderator.token,
        body: [{ id: thirdId, position: 3 }, { id: lowerRoleId, position: 1 }]
      })
      assert.strictEqual(moved.status, 204, JSON.stringify(moved.body))
      const listed = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: plain.token })
      expect(listed.body).toMatchObject([
        { id: modRoleId, position: 3 },
        { id: thirdId, position: 2 },
        { id: lowerRoleId, position: 1 },
        { id: guildId, position: 0 }
      ])
      const positions = yield* auditEntriesOfType(guildId, 31)
      expect(positions).toEqual(expect.arrayContaining([
        expect.objectContaining({ target_id: thirdId, changes: [{ key: "position", old_value: 1, new_value: 2 }] })
      ]))

      const overMe = yield* api.request("PATCH", `/guilds/${guildId}/roles`, { token: moderator.token, body: [{ id: modRoleId, position: 1 }] })
      expectError(overMe, 403, "MISSING_PERMISSIONS")
      const everyone = yield* api.request("PATCH", `/guilds/${guildId}/roles`, { token: owner.token, body: [{ id: guildId, position: 2 }] })
      assert.strictEqual(everyone.status, 400)
      expect(everyone.body).toMatchObject({ errors: [{ code: "CANNOT_REORDER_EVERYONE_ROLE" }] })
      const stranger = yield* api.request("PATCH", `/guilds/${guildId}/roles`, { token: owner.token, body: [{ id: "123", position: 2 }] })
      expect(stranger.body).toMatchObject({ errors: [{ code: "INVALID_ROLE_ID" }] })
      const notArray = yield* api.request("PATCH", `/guilds/${guildId}/roles`, { token: owner.token, body: { id: thirdId } })
      assert.strictEqual(notArray.status, 400)
      const byPlain = yield* api.request("PATCH", `/guilds/${guildId}/roles`, { token: plain.token, body: [] })
      assert.strictEqual(byPlain.status, 403)

      const hoisted = yield* api.request("PATCH", `/guilds/${guildId}/roles/hoist-positions`, {
        token: moderator.token,
        body: [{ id: lowerRoleId, hoist_position: 5 }]
      })
      assert.strictEqual(hoisted.status, 204, JSON.stringify(hoisted.body))
      const hoistEntries = yield* auditEntriesOfType(guildId, 31)
      expect(hoistEntries.at(-1)).toMatchObject({ target_id: lowerRoleId, changes: [{ key: "hoist_position", old_value: null, new_value: 5 }] })
      const noHoist = yield* api.request("PATCH", `/guilds/${guildId}/roles/hoist-positions`, {
        token: owner.token,
        body: [{ id: guildId, hoist_position: 1 }]
      })
      assert.strictEqual(noHoist.status, 400)
      expect(noHoist.body).toMatchObject({ errors: [{ code: "CANNOT_SET_HOIST_FOR_EVERYONE_ROLE" }] })
      const hoistOverMe = yield* api.request("PATCH", `/guilds/${guildId}/roles/hoist-positions`, {
        token: moderator.token,
        body: [{ id: modRoleId, hoist_position: 1 }]
      })
      assert.strictEqual(hoistOverMe.status, 403)
      const beforeReload = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: plain.token })
      yield* reload(guildId)
      const afterReload = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: plain.token })
      assert.deepStrictEqual(afterReload.body, beforeReload.body)
      const reset = yield* api.request("DELETE", `/guilds/${guildId}/roles/hoist-positions`, { token: moderator.token })
      assert.strictEqual(reset.status, 204)
      const after = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: plain.token })
      expect(after.body).toEqual(expect.arrayContaining([expect.objectContaining({ id: lowerRoleId, hoist_position: null })]))
    }))

  it.effect("grant and remove member roles: GUILD_MEMBER_UPDATE's state, audit 25 $add/$remove, hierarchy, 404s", () =>
    Effect.gen(function*() {
      const { api, owner, moderator, plain, guildId, modRoleId, lowerRoleId } = yield* setup
      const path = `/guilds/${guildId}/members/${plain.userId}/roles/${lowerRoleId}`
      const granted = yield* api.request("PUT", path, { token: moderator.token, headers: { "x-audit-log-reason": "helping out" } })
      assert.strictEqual(granted.status, 204)
      const member = yield* api.request("GET", `/guilds/${guildId}/members/${plain.userId}`, { token: owner.token })
      expect(member.body).toMatchObject({ roles: [lowerRoleId] })
      yield* reload(guildId)
      const reloaded = yield* api.request("GET", `/guilds/${guildId}/members/${plain.userId}`, { token: owner.token })
      expect(reloaded.body).toMatchObject({ roles: [lowerRoleId] })
      const added = (yield* auditEntriesOfType(guildId, 25)).at(-1)
      expect(added).toMatchObject({
        user_id: moderator.userId,
        target_id: plain.userId,
        reason: "helping out",
        changes: [{ key: "$add", new_value: [{ id: lowerRoleId, name: "helpers" }] }]
      })

      const ownRole = yield* api.request("PUT", `/guilds/${guildId}/members/${plain.userId}/roles/${modRoleId}`, { token: moderator.token })
      expectError(ownRole, 403, "MISSING_PERMISSIONS")
      const byPlain = yield* api.request("DELETE", path, { token: plain.token })
      assert.strictEqual(byPlain.status, 403)
      const unknownRole = yield* api.request("PUT", `/guilds/${guildId}/members/${plain.userId}/roles/999`, { token: owner.token })
      expect(unknownRole.body).toMatchObject({ code: "UNKNOWN_ROLE" })
      const unknownMember = yield* api.request("PUT", `/guilds/${guildId}/members/999/roles/${lowerRoleId}`, { token: owner.token })
      expect(unknownMember.body).toMatchObject({ code: "UNKNOWN_MEMBER" })
      const badId = yield* api.request("PUT", `/guilds/${guildId}/members/x/roles/${lowerRoleId}`, { token: owner.token })
      assert.strictEqual(badId.status, 400)

      const removed = yield* api.request("DELETE", path, { token: moderator.token })
      assert.strictEqual(removed.status, 204)
      const stored = yield* queryAt(api.databaseUrl, "SELECT roles::text[] AS roles FROM guild_members WHERE guild_id = $1 AND user_id = $2", [guildId, plain.userId])
      assert.deepStrictEqual(stored[0]?.roles, [])
      expect((yield* auditEntriesOfType(guildId, 25)).at(-1)).toMatchObject({ changes: [{ key: "$remove", new_value: [{ id: lowerRoleId, name: "helpers" }] }] })
    }))
})
