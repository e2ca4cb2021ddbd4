import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { addMember, cast, createGuild } from "../support/Cast.ts"

interface Entry {
  readonly id: string
  readonly action_type: number
  readonly user_id: string | null
  readonly target_id: string | null
  readonly reason?: string
  readonly changes: ReadonlyArray<{ readonly key: string; readonly old_value?: unknown; readonly new_value?: unknown }>
}

const entriesOf = (body: unknown): ReadonlyArray<Entry> => {
  assert.isObject(body)
  const { audit_log_entries } = body as { audit_log_entries: ReadonlyArray<Entry> }
  assert.isArray(audit_log_entries)
  return audit_log_entries
}

/** A guild whose log holds three renames by the owner and then one toggle, with a reason, by a manager. */
const guildWithHistory = Effect.gen(function*() {
  const { api, owner, member: manager, stranger, guildId: id } = yield* cast({
    memberPermissions: Permission.MANAGE_GUILD | Permission.VIEW_AUDIT_LOG
  })
  for (const name of ["One", "Two", "Three"]) {
    const renamed = yield* api.request("PATCH", `/guilds/${id}`, { token: owner.token, body: { name } })
    assert.strictEqual(renamed.status, 200)
  }
  const toggled = yield* api.request("PATCH", `/guilds/${id}/detached-banner`, {
    token: manager.token,
    body: { enabled: true },
    headers: { "x-audit-log-reason": "new%20look" }
  })
  assert.strictEqual(toggled.status, 200)
  return { api, owner, manager, stranger, id }
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("guild audit log", (it) => {
  it.effect("lists the entries newest first, with the users they name", () =>
    Effect.gen(function*() {
      const { api, owner, manager, id } = yield* guildWithHistory
      const reply = yield* api.request("GET", `/guilds/${id}/audit-logs`, { token: owner.token })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      const entries = entriesOf(reply.body)
      assert.deepStrictEqual(entries.map((e) => e.user_id), [manager.userId, owner.userId, owner.userId, owner.userId])
      assert.deepStrictEqual(entries.map((e) => e.action_type), [1, 1, 1, 1])
      assert.deepStrictEqual(entries.map((e) => e.reason), ["new look", undefined, undefined, undefined])
      expect(entries[1]).toMatchObject({ target_id: id, changes: [{ key: "name", old_value: "Two", new_value: "Three" }] })
      const ids = entries.map((e) => BigInt(e.id))
      assert.deepStrictEqual([...ids].sort((a, b) => (a < b ? 1 : -1)), ids)
      expect(reply.body).toMatchObject({ webhooks: [] })
      const { users } = reply.body as { users: ReadonlyArray<{ id: string }> }
      assert.deepStrictEqual(users.map((u) => u.id).sort(), [owner.userId, manager.userId].sort())
    }))

  it.effect("pages with limit, before and after, and filters by user and action type", () =>
    Effect.gen(function*() {
      const { api, owner, manager, id } = yield* guildWithHistory
      const all = entriesOf((yield* api.request("GET", `/guilds/${id}/audit-logs`, { token: owner.token })).body)
      const ids = all.map((e) => e.id)

      const first = entriesOf((yield* api.request("GET", `/guilds/${id}/audit-logs?limit=2`, { token: owner.token })).body)
      assert.deepStrictEqual(first.map((e) => e.id), ids.slice(0, 2))
      const older = entriesOf(
        (yield* api.request("GET", `/guilds/${id}/audit-logs?limit=2&before=${ids[1]}`, { token: owner.token })).body
      )
      assert.deepStrictEqual(older.map((e) => e.id), ids.slice(2, 4))
      // `after` takes the entries just after it, still newest first.
      const newer = entriesOf(
        (yield* api.request("GET", `/guilds/${id}/audit-logs?limit=2&after=${ids[3]}`, { token: owner.token })).body
      )
      assert.deepStrictEqual(newer.map((e) => e.id), ids.slice(1, 3))

      const byManager = yield* api.request("GET", `/guilds/${id}/audit-logs?user_id=${manager.userId}`, { token: owner.token })
      assert.deepStrictEqual(entriesOf(byManager.body).map((e) => e.id), ids.slice(0, 1))
      expect(byManager.body).toMatchObject({ users: [{ id: manager.userId }] })
      const updates = yield* api.request("GET", `/guilds/${id}/audit-logs?action_type=1`, { token: owner.token })
      assert.strictEqual(entriesOf(updates.body).length, 4)
      const roleCreates = yield* api.request("GET", `/guilds/${id}/audit-logs?action_type=30`, { token: owner.token })
      assert.deepStrictEqual(roleCreates.body, { audit_log_entries: [], users: [], webhooks: [] })
    }))

  it.effect("refuses bad paging: both before and after, limits out of range, unknown action types", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId: id } = yield* createGuild(owner.token)
      for (const query of ["before=5&after=3", "limit=0", "limit=101", "limit=ten", "action_type=2", "user_id=me", "before=x"]) {
        const reply = yield* api.request("GET", `/guilds/${id}/audit-logs?${query}`, { token: owner.token })
        assert.strictEqual(reply.status, 400, query)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
      }
      const max = yield* api.request("GET", `/guilds/${id}/audit-logs?limit=100`, { token: owner.token })
      assert.strictEqual(max.status, 200)
    }))

  it.effect("is for members holding VIEW_AUDIT_LOG", () =>
    Effect.gen(function*() {
      const { api, manager, stranger, id } = yield* guildWithHistory
      const member = yield* api.register()
      yield* addMember(id, member.userId, Permission.MANAGE_GUILD)
      const byManager = yield* api.request("GET", `/guilds/${id}/audit-logs`, { token: manager.token })
      assert.strictEqual(byManager.status, 200)
      assert.strictEqual(entriesOf(byManager.body).length, 4)
      const byMember = yield* api.request("GET", `/guilds/${id}/audit-logs`, { token: member.token })
      expectError(byMember, 403, "MISSING_PERMISSIONS")
      const byStranger = yield* api.request("GET", `/guilds/${id}/audit-logs`, { token: stranger.token })
      expectError(byStranger, 403, "MISSING_ACCESS")
      const noGuild = yield* api.request("GET", "/guilds/1234567890123/audit-logs", { token: manager.token })
      expectError(noGuild, 404, "UNKNOWN_GUILD")
    }))
})
