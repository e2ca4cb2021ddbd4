import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { createGuild, newMember, reload } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

const auditOf = (guildId: string) =>
  Effect.flatMap(TestApi, (api) =>
    queryAt(api.databaseUrl, "SELECT action_type, target_id, reason, changes, options FROM guild_audit_log_entries WHERE guild_id = $1 ORDER BY id", [guildId]))

layer(TestApi.layer, { timeout: 180_000, excludeTestServices: true })("channels over HTTP", (it) => {
  it.effect("POST /guilds/{id}/channels: four variants, checked parents, MANAGE_CHANNELS, audit 10", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const post = (token: string, body: unknown, headers?: Record<string, string>) =>
        api.request("POST", `/guilds/${guildId}/channels`, { token, body, ...(headers ? { headers } : {}) })

      const category = yield* post(owner.token, { type: 4, name: "Lobby" }, { "X-Audit-Log-Reason": "tidy%20up" })
      assert.strictEqual(category.status, 200, JSON.stringify(category.body))
      const categoryId = field(category.body, "id")
      const text = yield* post(owner.token, { type: 0, name: "Read Me", parent_id: categoryId, topic: "rules" })
      expect(text.body).toMatchObject({ type: 0, name: "read-me", parent_id: categoryId, topic: "rules", guild_id: guildId })
      const voice = yield* post(owner.token, { type: 2, name: "Voice", bitrate: 96000 })
      expect(voice.body).toMatchObject({ type: 2, name: "Voice", bitrate: 96000, user_limit: 0 })
      const link = yield* post(owner.token, { type: 998, name: "Docs", url: "https://example.org/docs" })
      expect(link.body).toMatchObject({ type: 998, url: "https://example.org/docs" })

      const noName = yield* post(owner.token, { type: 0 })
      expectError(noName, 400, "INVALID_FORM_BODY")
      const badType = yield* post(owner.token, { type: 7, name: "x" })
      assert.strictEqual(badType.status, 400)
      const textParent = yield* post(owner.token, { type: 0, name: "x", parent_id: field(text.body, "id") })
      assert.strictEqual(textParent.status, 400)
      expect(textParent.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "parent_id", code: "PARENT_MUST_BE_CATEGORY" }] })
      const nestedCategory = yield* post(owner.token, { type: 4, name: "x", parent_id: categoryId })
      expect(nestedCategory.body).toMatchObject({ errors: [{ code: "CATEGORIES_CANNOT_HAVE_PARENTS" }] })

      const stranger = yield* api.register()
      const outside = yield* post(stranger.token, { type: 0, name: "x" })
      expectError(outside, 403, "MISSING_ACCESS")
      const plain = yield* newMember(guildId, 0n)
      const refused = yield* post(plain.token, { type: 0, name: "x" })
      expectError(refused, 403, "MISSING_PERMISSIONS")
      const manager = yield* newMember(guildId, Permission.MANAGE_CHANNELS)
      assert.strictEqual((yield* post(manager.token, { type: 0, name: "by-manager" })).status, 200)

      const entries = yield* auditOf(guildId)
      const created = entries.filter((e) => e.action_type === 10)
      assert.strictEqual(created.length, 5)
      expect(created[0]).toMatchObject({ target_id: categoryId, reason: "tidy up" })
      expect(created[0]?.changes).toEqual(expect.arrayContaining([{ key: "name", old_value: null, new_value: "Lobby" }]))

      const list = yield* api.request("GET", `/guilds/${guildId}/channels`, { token: owner.token })
      assert.strictEqual(list.status, 200)
      assert.strictEqual((list.body as ReadonlyArray<unknown>).length, 6)
      const stored = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM channels WHERE guild_id = $1", [guildId])
      assert.strictEqual(stored[0]?.n, 6)
    }))

  it.effect("GET/PATCH/DELETE /channels/{id}: visible channels, MANAGE_CHANNELS, audits 11 and 12, settings cleared", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId: generalId } = yield* createGuild(owner.token)
      const got = yield* api.request("GET", `/channels/${generalId}`, { token: owner.token })
      assert.strictEqual(got.status, 200)
      expect(got.body).toMatchObject({ id: generalId, name: "general", guild_id: guildId, permission_overwrites: [] })
      assert.strictEqual((yield* api.request("GET", "/channels/12345", { token: owner.token })).status, 404)

      const patched = yield* api.request("PATCH", `/channels/${generalId}`, { token: owner.token, body: { name: "Main Hall", topic: "welcome", nsfw: true } })
      assert.strictEqual(patched.status, 200, JSON.stringify(patched.body))
      expect(patched.body).toMatchObject({ name: "main-hall", topic: "welcome", nsfw: true })
      const tooLong = yield* api.request("PATCH", `/channels/${generalId}`, { token: owner.token, body: { name: "x".repeat(101) } })
      expectError(tooLong, 400, "INVALID_FORM_BODY")
      const retype = yield* api.request("PATCH", `/channels/${generalId}`, { token: owner.token, body: { type: 2 } })
      expect(retype.body).toMatchObject({ errors: [{ path: "type", code: "INVALID_CHANNEL_TYPE" }] })

      const stranger = yield* api.register()
      const strangerGet = yield* api.request("GET", `/channels/${generalId}`, { token: stranger.token })
      expectError(strangerGet, 403, "MISSING_ACCESS")
      const plain = yield* newMember(guildId, 0n)
      const plainPatch = yield* api.request("PATCH", `/channels/${generalId}`, { token: plain.token, body: { name: "x" } })
      expectError(plainPatch, 403, "MISSING_PERMISSIONS")
      const plainDelete = yield* api.request("DELETE", `/channels/${generalId}`, { token: plain.token })
      assert.strictEqual(plainDelete.status, 403)

      const deleted = yield* api.request("DELETE", `/channels/${generalId}`, { token: owner.token, headers: { "X-Audit-Log-Reason": "gone" } })
      assert.strictEqual(deleted.status, 204)
      assert.strictEqual((yield* api.request("GET", `/channels/${generalId}`, { token: owner.token })).status, 404)
      const again = yield* api.request("DELETE", `/channels/${generalId}`, { token: owner.token })
      expectError(again, 404, "UNKNOWN_CHANNEL")
      const guild = yield* api.request("GET", `/guilds/${guildId}`, { token: owner.token })
      expect(guild.body).toMatchObject({ system_channel_id: null, channels: [] })
      const row = yield* queryAt(api.databaseUrl, "SELECT system_channel_id FROM guilds WHERE id = $1", [guildId])
      assert.strictEqual(row[0]?.system_channel_id, null)

      const entries = yield* auditOf(guildId)
      const updated = entries.find((e) => e.action_type === 11)
      expect(updated).toMatchObject({ target_id: generalId })
      expect(updated?.changes).toEqual(expect.arrayContaining([{ key: "name", old_value: "general", new_value: "main-hall" }]))
      expect(entries.find((e) => e.action_type === 12)).toMatchObject({ target_id: generalId, reason: "gone" })
    }))

  it.effect("PATCH /guilds/{id}/channels: sibling order, categories, errors, MANAGE_CHANNELS, audit 11", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId: generalId } = yield* createGuild(owner.token)
      const make = (body: unknown) => Effect.map(api.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body }), (r) => field(r.body, "id"))
      const categoryId = yield* make({ type: 4, name: "Private", permission_overwrites: [{ id: guildId, type: 0, deny: Permission.VIEW_CHANNEL.toString() }] })
      const secondId = yield* make({ type: 0, name: "second" })
      const patch = (token: string, body: unknown) => api.request("PATCH", `/guilds/${guildId}/channels`, { token, body })

      const moved = yield* patch(owner.token, [{ id: generalId, preceding_sibling_id: secondId }])
      assert.strictEqual(moved.status, 204, JSON.stringify(moved.body))
      const list = yield* api.request("GET", `/guilds/${guildId}/channels`, { token: owner.token })
      assert.deepStrictEqual((list.body as ReadonlyArray<{ id: string }>).map((c) => c.id), [categoryId, secondId, generalId])

      const locked = yield* patch(owner.token, [{ id: secondId, parent_id: categoryId, lock_permissions: true }])
      assert.strictEqual(locked.status, 204)
      const second = yield* api.request("GET", `/channels/${secondId}`, { token: owner.token })
      expect(second.body).toMatchObject({ parent_id: categoryId, permission_overwrites: [{ id: guildId, type: 0, allow: "0", deny: Permission.VIEW_CHANNEL.toString() }] })

      const itself = yield* patch(owner.token, [{ id: generalId, preceding_sibling_id: generalId }])
      assert.strictEqual(itself.status, 400)
      expect(itself.body).toMatchObject({ errors: [{ path: "0.preceding_sibling_id", code: "CANNOT_POSITION_CHANNEL_RELATIVE_TO_ITSELF" }] })
      const notCategory = yield* patch(owner.token, [{ id: generalId, parent_id: secondId }])
      expect(notCategory.body).toMatchObject({ errors: [{ code: "PARENT_MUST_BE_CATEGORY" }] })
      const otherCategory = yield* make({ type: 4, name: "Other" })
      const nested = yield* patch(owner.token, [{ id: otherCategory, parent_id: categoryId }])
      expect(nested.body).toMatchObject({ errors: [{ code: "CATEGORIES_CANNOT_HAVE_PARENT_CHANNEL" }] })
      const empty = yield* patch(owner.token, [])
      assert.strictEqual(empty.status, 400)

      const plain = yield* newMember(guildId, 0n)
      const refused = yield* patch(plain.token, [{ id: generalId, position: 0 }])
      expectError(refused, 403, "MISSING_PERMISSIONS")

      const entries = yield* auditOf(guildId)
      const parentChange = entries.find((e) => e.action_type === 11 && e.target_id === secondId &&
        Array.isArray(e.changes) && e.changes.some((c: { key: string }) => c.key === "parent_id"))
      expect(parentChange?.changes).toEqual(expect.arrayContaining([{ key: "parent_id", old_value: null, new_value: categoryId }]))
      const rows = yield* queryAt(api.databaseUrl, "SELECT parent_id::text AS parent_id FROM channels WHERE id = $1", [secondId])
      assert.strictEqual(rows[0]?.parent_id, categoryId)
    }))

  it.effect("PUT/DELETE /channels/{id}/permissions/{overwrite_id}: MANAGE_ROLES, own bits only, visibility, audits 13-15", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId, channelId: generalId } = yield* createGuild(owner.token)
      const plain = yield* newMember(guildId, 0n)
      const roleManager = yield* newMember(guildId, Permission.MANAGE_ROLES)
      const put = (token: string, overwriteId: string, body: unknown) =>
        api.request("PUT", `/channels/${generalId}/permissions/${overwriteId}`, { token, body })

      const hide = yield* put(owner.token, plain.userId, { type: 1, deny: Permission.VIEW_CHANNEL.toString() })
      assert.strictEqual(hide.status, 204, JSON.stringify(hide.body))
      const hidden = yield* api.request("GET", `/channels/${generalId}`, { token: plain.token })
      expectError(hidden, 403, "MISSING_ACCESS")
      const plainList = yield* api.request("GET", `/guilds/${guildId}/channels`, { token: plain.token })
      assert.deepStrictEqual(plainList.body, [])
      const ownerView = yield* api.request("GET", `/channels/${generalId}`, { token: owner.token })
      expect(ownerView.body).toMatchObject({ permission_overwrites: [{ id: plain.userId, type: 1, allow: "0", deny: Permission.VIEW_CHANNEL.toString() }] })

      const badType = yield* put(owner.token, plain.userId, { type: 3 })
      expectError(badType, 400, "INVALID_FORM_BODY")
      const noRole = yield* put(owner.token, "4242", { type: 0 })
      expectError(noRole, 404, "UNKNOWN_ROLE")
      const byPlain = yield* put(plain.token, guildId, { type: 0, deny: Permission.SEND_MESSAGES.toString() })
      assert.strictEqual(byPlain.status, 403)
      const overreach = yield* put(roleManager.token, guildId, { type: 0, allow: Permission.BAN_MEMBERS.toString() })
      expectError(overreach, 403, "MISSING_PERMISSIONS")
      // Bits the manager holds in the channel (through @everyone), on another role so they keep holding them.
      const withinReach = yield* put(roleManager.token, plain.roleId, { type: 0, deny: Permission.SEND_MESSAGES.toString() })
      assert.strictEqual(withinReach.status, 204)
      const changed = yield* put(roleManager.token, plain.roleId, { type: 0, deny: (Permission.SEND_MESSAGES | Permission.ADD_REACTIONS).toString() })
      assert.strictEqual(changed.status, 204)

      const removed = yield* api.request("DELETE", `/channels/${generalId}/permissions/${plain.userId}`, { token: owner.token })
      assert.strictEqual(removed.status, 204)
      assert.strictEqual((yield* api.request("GET", `/channels/${generalId}`, { token: plain.token })).status, 200)
      const plainDelete = yield* api.request("DELETE", `/channels/${generalId}/permissions/${guildId}`, { token: plain.token })
      assert.strictEqual(plainDelete.status, 403)

      const entries = yield* auditOf(guildId)
      expect(entries.filter((e) => [13, 14, 15].includes(Number(e.action_type))).map((e) => [e.action_type, e.options])).toEqual([
        [13, { id: plain.userId, type: "1" }],
        [13, { id: plain.roleId, type: "0", role_name: "staff" }],
        [14, { id: plain.roleId, type: "0", role_name: "staff" }],
        [15, { id: plain.userId, type: "1" }]
      ])

      // Everything above survives the actor loading the guild again from Postgres.
      yield* reload(guildId)
      const afterReload = yield* api.request("GET", `/channels/${generalId}`, { token: owner.token })
      expect(afterReload.body).toMatchObject({ permission_overwrites: [{ id: plain.roleId, type: 0, deny: (Permission.SEND_MESSAGES | Permission.ADD_REACTIONS).toString() }] })
    }))

  it.effect("GET /channels/{id}/rtc-regions: for who can see the channel", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { channelId: generalId } = yield* createGuild(owner.token)
      const regions = yield* api.request("GET", `/channels/${generalId}/rtc-regions`, { token: owner.token })
      assert.strictEqual(regions.status, 200)
      const list = regions.body as ReadonlyArray<{ id: string; name: string; emoji: string }>
      assert.isTrue(list.length > 0)
      for (const region of list) expect(Object.keys(region).sort()).toEqual(["emoji", "id", "name"])
      const stranger = yield* api.register()
      const outside = yield* api.request("GET", `/channels/${generalId}/rtc-regions`, { token: stranger.token })
      assert.strictEqual(outside.status, 403)
      const badId = yield* api.request("GET", "/channels/not-a-snowflake/rtc-regions", { token: owner.token })
      assert.strictEqual(badId.status, 400)
      assert.strictEqual((yield* api.request("GET", "/channels/77/rtc-regions", { token: owner.token })).status, 404)
    }))
})
