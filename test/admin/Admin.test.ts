import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { execFile } from "node:child_process"
import { setAcls } from "../support/Acls.ts"
import { queryAt } from "../support/Postgres.ts"
import { NODE, ROOT } from "../support/Processes.ts"
import { eventually } from "../support/Cluster.ts"
import { dataOf, identified, nextMatching } from "../gateway/Client.ts"
import { guildOfTwo } from "../invites/Fixtures.ts"

const admin = (key: string) => `Admin ${key}`

const stats = Effect.gen(function*() {
  const api = yield* TestApi
  const reply = yield* api.request("GET", "/admin/gateway/stats", { token: admin(api.adminKey) })
  assert.strictEqual(reply.status, 200)
  return reply.body
})
const liveGuilds = Effect.map(stats, (body) =>
  typeof body === "object" && body !== null && "guilds" in body && typeof body.guilds === "number" ? body.guilds : -1)

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("admin API", (it) => {
  it.effect("the bootstrap key reaches /admin; users and other keys need ACLs", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.request("GET", "/admin/users/me", { token: admin(api.adminKey) })
      assert.strictEqual(me.status, 200)
      expect(me.body).toMatchObject({ user: { acls: ["*"] } })

      const user = yield* api.register()
      const asUser = yield* api.request("GET", "/admin/users/me", { token: user.token })
      expectError(asUser, 403, "MISSING_PERMISSIONS")
      const wrongKey = yield* api.request("GET", "/admin/users/me", { token: admin("nope") })
      assert.strictEqual(wrongKey.status, 401)
      const bot = yield* api.request("GET", "/admin/users/me", { token: "Bot 1.secret" })
      assert.strictEqual(bot.status, 401)

      // A user granted admin:authenticate and one route ACL reaches that route only.
      yield* setAcls(user.userId, ["admin:authenticate", "gateway:memory_stats"])
      const viewStats = yield* api.request("GET", "/admin/gateway/stats", { token: user.token })
      assert.strictEqual(viewStats.status, 200)
      const listKeys = yield* api.request("GET", "/admin/api-keys", { token: user.token })
      assert.strictEqual(listKeys.status, 403)
    }))

  it.effect("creates, lists and deletes API keys; the secret is shown once; every action is audited", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const created = yield* api.request("POST", "/admin/api-keys", {
        token: admin(api.adminKey),
        body: { name: "stats reader", acls: ["gateway:memory_stats"], expires_in_days: 30 }
      })
      assert.strictEqual(created.status, 200)
      const keyId = field(created.body, "key_id")
      const secret = field(created.body, "key")
      assert.isNotNull(field(created.body, "expires_at"))

      const listed = yield* api.request("GET", "/admin/api-keys", { token: admin(api.adminKey) })
      expect(listed.body).toEqual(expect.arrayContaining([expect.objectContaining({ key_id: keyId, acls: ["gateway:memory_stats"] })]))
      assert.notInclude(JSON.stringify(listed.body), secret)

      const withNew = yield* api.request("GET", "/admin/gateway/stats", { token: admin(secret) })
      assert.strictEqual(withNew.status, 200)
      const beyond = yield* api.request("POST", "/admin/api-keys", { token: admin(secret), body: { name: "x", acls: ["*"] } })
      assert.strictEqual(beyond.status, 403)

      const badAcl = yield* api.request("POST", "/admin/api-keys", { token: admin(api.adminKey), body: { name: "x", acls: ["root"] } })
      assert.strictEqual(badAcl.status, 400)
      const badBody = yield* api.request("POST", "/admin/api-keys", { token: admin(api.adminKey), body: { name: "", acls: "x" } })
      assert.strictEqual(badBody.status, 400)

      const deleted = yield* api.request("DELETE", `/admin/api-keys/${keyId}`, {
        token: admin(api.adminKey),
        headers: { "x-audit-log-reason": encodeURIComponent("rotated: leaked in a log") }
      })
      assert.deepStrictEqual(deleted.body, { success: true })
      const gone = yield* api.request("GET", "/admin/gateway/stats", { token: admin(secret) })
      assert.strictEqual(gone.status, 401)
      const again = yield* api.request("DELETE", `/admin/api-keys/${keyId}`, { token: admin(api.adminKey) })
      assert.strictEqual(again.status, 404)

      const logs = yield* api.request("POST", "/admin/audit-logs/search", { token: admin(api.adminKey), body: { target_id: keyId } })
      expect(logs.body).toMatchObject({
        total: 2,
        logs: [{ action: "api_key.delete", audit_log_reason: "rotated: leaked in a log" }, { action: "api_key.create", audit_log_reason: null }]
      })
      const all = yield* api.request("POST", "/admin/audit-logs", { token: admin(api.adminKey), body: { limit: 1 } })
      expect(all.body).toMatchObject({ logs: [{ target_type: expect.any(String) }] })
      const badPage = yield* api.request("POST", "/admin/audit-logs", { token: admin(api.adminKey), body: { limit: 1000 } })
      assert.strictEqual(badPage.status, 400)
    }))

  it.effect("set-acls makes a user staff through their actor: their views and sessions see it, and it is audited", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const session = (yield* identified(user.token)).client
      const before = yield* api.request("GET", "/users/@me", { token: user.token })
      expect(before.body).toMatchObject({ is_staff: false, acls: [] })

      const set = yield* api.request("POST", "/admin/users/set-acls", {
        token: admin(api.adminKey),
        body: { user_id: user.userId, acls: ["admin:authenticate", "gateway:memory_stats", "admin:authenticate"] }
      })
      assert.strictEqual(set.status, 200, JSON.stringify(set.body))
      expect(set.body).toMatchObject({
        user: {
          id: user.userId,
          username: expect.any(String),
          discriminator: expect.any(Number),
          global_name: null,
          email: user.email,
          email_verified: false,
          acls: ["admin:authenticate", "gateway:memory_stats"],
          flags: "0",
          bot: false,
          system: false,
          has_totp: false,
          authenticator_types: []
        }
      })
      const update = yield* nextMatching(session, "USER_UPDATE", (d) => JSON.stringify(d).includes("gateway:memory_stats"))
      expect(dataOf(update)).toMatchObject({ id: user.userId, is_staff: true })
      expect((yield* api.request("GET", "/users/@me", { token: user.token })).body).toMatchObject({
        is_staff: true,
        acls: ["admin:authenticate", "gateway:memory_stats"]
      })
      const stored = yield* queryAt(api.databaseUrl, "SELECT acls FROM users WHERE id = $1", [user.userId])
      assert.deepStrictEqual(stored[0]?.acls, ["admin:authenticate", "gateway:memory_stats"])
      assert.strictEqual((yield* api.request("GET", "/admin/gateway/stats", { token: user.token })).status, 200)
      const logs = yield* api.request("POST", "/admin/audit-logs/search", { token: admin(api.adminKey), body: { target_id: user.userId } })
      expect(logs.body).toMatchObject({
        total: 1,
        logs: [{ action: "user.set_acls", target_type: "user", metadata: { acls: "admin:authenticate,gateway:memory_stats" } }]
      })

      // An empty list takes staff away again.
      const cleared = yield* api.request("POST", "/admin/users/set-acls", { token: admin(api.adminKey), body: { user_id: user.userId, acls: [] } })
      expect(cleared.body).toMatchObject({ user: { acls: [] } })
      expect((yield* api.request("GET", "/users/@me", { token: user.token })).body).toMatchObject({ is_staff: false, acls: [] })
      expectError(yield* api.request("GET", "/admin/gateway/stats", { token: user.token }), 403, "MISSING_PERMISSIONS")
    }))

  it.effect("set-acls refuses bad input, unknown users, and operators without the ACL or beyond their own", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const target = yield* api.register()
      const setBy = (token: string, body: unknown) => api.request("POST", "/admin/users/set-acls", { token, body })

      for (const body of [{ user_id: "abc", acls: [] }, { user_id: target.userId, acls: "x" }, { user_id: target.userId }, { acls: [] }]) {
        expectError(yield* setBy(admin(api.adminKey), body), 400, "INVALID_FORM_BODY")
      }
      const unknownAcl = yield* setBy(admin(api.adminKey), { user_id: target.userId, acls: ["root"] })
      expectError(unknownAcl, 400, "INVALID_FORM_BODY")
      expect(unknownAcl.body).toMatchObject({ errors: [{ path: "acls", code: "INVALID_ACLS_FORMAT" }] })
      expectError(yield* setBy(admin(api.adminKey), { user_id: "42", acls: [] }), 404, "UNKNOWN_USER")

      // An operator key without admin:acls:set, and one that holds it but not what it hands out.
      const keyWith = (acls: ReadonlyArray<string>) =>
        Effect.map(
          api.request("POST", "/admin/api-keys", { token: admin(api.adminKey), body: { name: "operator", acls } }),
          (reply) => admin(field(reply.body, "key"))
        )
      const viewer = yield* keyWith(["gateway:memory_stats"])
      expectError(yield* setBy(viewer, { user_id: target.userId, acls: [] }), 403, "MISSING_PERMISSIONS")
      const setter = yield* keyWith(["acl:set:user", "gateway:memory_stats"])
      expectError(yield* setBy(setter, { user_id: target.userId, acls: ["*"] }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* setBy(setter, { user_id: target.userId, acls: ["gateway:memory_stats"] })).status, 200)

      // A user operator cannot change their own ACLs.
      const operator = yield* api.register()
      yield* setAcls(operator.userId, ["admin:authenticate", "acl:set:user"])
      expectError(yield* setBy(operator.token, { user_id: operator.userId, acls: ["admin:authenticate"] }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* setBy(operator.token, { user_id: target.userId, acls: [] })).status, 200)
      expectError(yield* setBy(target.token, { user_id: target.userId, acls: [] }), 403, "MISSING_PERMISSIONS")

      // Nothing refused was kept.
      expect((yield* api.request("GET", "/users/@me", { token: target.token })).body).toMatchObject({ acls: [] })
    }))

  it.effect("reload picks up a change written straight into Postgres; shutdown drops the actor", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const created = yield* api.request("POST", "/guilds", { token: owner.token, body: { name: "Before" } })
      const guildId = field(created.body, "id")
      const before = yield* liveGuilds
      assert.isAtLeast(before, 1)

      yield* queryAt(api.databaseUrl, "UPDATE guilds SET name = 'Written behind its back' WHERE id = $1", [guildId])
      const stale = yield* api.request("GET", `/guilds/${guildId}`, { token: owner.token })
      expect(stale.body).toMatchObject({ name: "Before" })
      const reload = yield* api.request("POST", "/admin/guilds/reload", { token: admin(api.adminKey), body: { guild_id: guildId } })
      assert.deepStrictEqual(reload.body, { success: true })
      const fresh = yield* api.request("GET", `/guilds/${guildId}`, { token: owner.token })
      expect(fresh.body).toMatchObject({ name: "Written behind its back" })

      const memory = yield* api.request("POST", "/admin/gateway/memory-stats", { token: admin(api.adminKey), body: { limit: 100 } })
      expect(memory.body).toMatchObject({ guilds: expect.arrayContaining([expect.objectContaining({ guild_id: guildId, member_count: 1 })]) })

      const shutdown = yield* api.request("POST", "/admin/guilds/shutdown", { token: admin(api.adminKey), body: { guild_id: guildId } })
      assert.deepStrictEqual(shutdown.body, { success: true })
      assert.strictEqual(yield* liveGuilds, before - 1)
      const restarted = yield* api.request("GET", `/guilds/${guildId}`, { token: owner.token })
      expect(restarted.body).toMatchObject({ name: "Written behind its back" })
      assert.strictEqual(yield* liveGuilds, before)

      const unknownGuild = yield* api.request("POST", "/admin/guilds/reload", { token: admin(api.adminKey), body: { guild_id: "42" } })
      expectError(unknownGuild, 404, "UNKNOWN_GUILD")
      const badId = yield* api.request("POST", "/admin/guilds/shutdown", { token: admin(api.adminKey), body: { guild_id: "x" } })
      assert.strictEqual(badId.status, 400)

      const reloadAll = yield* api.request("POST", "/admin/gateway/reload-all", { token: admin(api.adminKey), body: { guild_ids: [] } })
      expect(reloadAll.body).toMatchObject({ count: before })
      // Listed ids count only for the guilds that exist (ids of none were counted, and their actors started).
      const listed = yield* api.request("POST", "/admin/gateway/reload-all", {
        token: admin(api.adminKey),
        body: { guild_ids: [guildId, "42", "43", guildId] }
      })
      assert.deepStrictEqual(listed.body, { count: 1 })
      const logs = yield* api.request("POST", "/admin/audit-logs/search", { token: admin(api.adminKey), body: { target_id: guildId } })
      expect(logs.body).toMatchObject({ total: 2, logs: [{ action: "guild.shutdown" }, { action: "guild.reload" }] })
    }))

  it.effect("`npm run admin -- create-key` prints only a working key", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const run = (args: ReadonlyArray<string>) =>
        Effect.promise(() =>
          new Promise<{ code: number | null; stdout: string; stderr: string }>((done) => {
            execFile(NODE, [`${ROOT}/src/admin/cli.ts`, ...args], { env: { PATH: process.env.PATH ?? "", DATABASE_URL: api.databaseUrl } }, (error, stdout, stderr) =>
              done({ code: error === null ? 0 : typeof error.code === "number" ? error.code : 1, stdout, stderr }))
          })
        )
      const made = yield* run(["create-key", "--name", "cli operator", "--acls", "gateway:memory_stats"])
      assert.strictEqual(made.code, 0, made.stderr)
      assert.match(made.stdout, /^[A-Za-z0-9_-]{43}\n$/)
      const reply = yield* api.request("GET", "/admin/gateway/stats", { token: admin(made.stdout.trim()) })
      assert.strictEqual(reply.status, 200)
      const wrong = yield* run(["create-key", "--name", "x", "--acls", "root"])
      assert.notStrictEqual(wrong.code, 0)
      assert.include(wrong.stderr, "unknown ACL root")
    }))

  it.effect("stats report per process and summed", () =>
    Effect.gen(function*() {
      const body = yield* stats
      expect(body).toMatchObject({ status: "ok", process_count: 1, processes: [{ role: "embedded" }] })
    }))

  it.effect("stats count calls, split memory, and give each heavy guild its sessions and presences", () =>
    Effect.gen(function*() {
      const { api, owner, member, guildId } = yield* guildOfTwo
      const numbers = (body: unknown) => body as { calls: number; memory: { total: number; processes: number; system: number } }
      const callsBefore = numbers(yield* stats).calls

      // Two sessions of the owner and one of the member, all three online.
      const ownerSide = (yield* identified(owner.token)).client
      yield* identified(owner.token)
      yield* identified(member.token)
      yield* nextMatching(ownerSide, "PRESENCE_UPDATE", (d) => JSON.stringify(d).includes(member.userId))
      const audience = Effect.map(
        api.request("POST", "/admin/gateway/memory-stats", { token: admin(api.adminKey), body: { limit: 100 } }),
        (reply) => (reply.body as { guilds: ReadonlyArray<{ guild_id: string; session_count: number; presence_count: number }> })
          .guilds.find((g) => g.guild_id === guildId)
      )
      // Both counts stayed 0 whoever was connected.
      const seen = yield* eventually("the guild's audience", audience, (g) => g?.session_count === 3 && g.presence_count === 2)
      expect(seen).toMatchObject({ session_count: 3, presence_count: 2 })

      // A DM call in progress counts until it ends (calls stayed 0).
      const dm = yield* api.request("POST", "/users/@me/channels", { token: owner.token, body: { recipient_id: member.userId } })
      const channelId = field(dm.body, "id")
      assert.strictEqual((yield* api.request("POST", `/channels/${channelId}/call/ring`, { token: owner.token, body: {} })).status, 204)
      assert.strictEqual(numbers(yield* stats).calls, callsBefore + 1)
      assert.strictEqual((yield* api.request("POST", `/channels/${channelId}/call/end`, { token: owner.token })).status, 204)
      assert.strictEqual(numbers(yield* stats).calls, callsBefore)

      // The heaps of what runs, and the rest of the process (total equalled processes, system was the machine's RAM).
      const { memory } = numbers(yield* stats)
      assert.isAbove(memory.processes, 0)
      assert.isBelow(memory.processes, memory.total)
      assert.strictEqual(memory.system, memory.total - memory.processes)
    }))
})
