import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { expectError, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { auditEntriesOfType } from "../../support/Audit.ts"
import { createGuild } from "../../support/Cast.ts"
import { identified, nextMatching } from "../../gateway/Client.ts"

const admin = (key: string) => `Admin ${key}`
const GUILD_UPDATE = 1

interface Applied {
  readonly guildId: string
  readonly token: string
  readonly tag: string
}

/** A new guild (its owner alone is enough here) with a pending application, found by a tag of its own. */
const applied = Effect.gen(function*() {
  const api = yield* TestApi
  const owner = yield* api.register()
  const { guildId } = yield* createGuild(owner.token, "Kite Flyers")
  const tag = `kites${randomUUID().slice(0, 8)}`
  const reply = yield* api.request("POST", `/guilds/${guildId}/discovery`, {
    token: owner.token,
    body: { description: "Kites of every shape, flown together", category_type: 7, custom_tags: [tag] }
  })
  assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
  return { guildId, token: owner.token, tag } satisfies Applied
})

const asAdmin = (method: "GET" | "POST", path: string, body?: unknown) =>
  Effect.flatMap(TestApi, (api) => api.request(method, path, { token: admin(api.adminKey), body }))

const listedIds = (guild: Applied) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const found = yield* api.request("GET", `/discovery/guilds?tag=${guild.tag}`, { token: guild.token })
    assert.strictEqual(found.status, 200, JSON.stringify(found.body))
    return (found.body as { guilds: Array<{ id: string; features: Array<string> }> }).guilds
  })

/** The application as the guild's owner sees it. */
const ownerSees = (guild: Applied) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const status = yield* api.request("GET", `/guilds/${guild.guildId}/discovery`, { token: guild.token })
    assert.strictEqual(status.status, 200, JSON.stringify(status.body))
    return (status.body as { application: Record<string, unknown> }).application
  })

const featuresOf = (guild: Applied) =>
  Effect.gen(function*() {
    const api = yield* TestApi
    const reply = yield* api.request("GET", `/guilds/${guild.guildId}`, { token: guild.token })
    return (reply.body as { features: Array<string> }).features
  })

layer(TestApi.layerWith({ DISCOVERY_MIN_MEMBERS: "1" }), { timeout: 120_000, excludeTestServices: true })("admin discovery review", (it) => {
  it.effect("every route: served to an operator, 400 on bad input, 403 without its ACL, 401 anonymous", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const other = yield* api.register()
      // Reaches /admin, but holds none of these routes' ACLs.
      yield* setAcls(other.userId, ["admin:authenticate", "user:lookup"])
      const approved = yield* applied
      const routes = [
        { method: "GET" as const, path: () => "/admin/discovery/applications?limit=5", bad: "/admin/discovery/applications?limit=0", body: undefined },
        { method: "POST" as const, path: () => `/admin/discovery/applications/${approved.guildId}/approve`, bad: "/admin/discovery/applications/nope/approve", body: {} },
        { method: "POST" as const, path: () => `/admin/discovery/guilds/${approved.guildId}/remove`, bad: `/admin/discovery/guilds/${approved.guildId}/remove`, body: { reason: "Gone quiet" } }
      ]
      for (const route of routes) {
        const ok = yield* asAdmin(route.method, route.path(), route.body)
        assert.strictEqual(ok.status, 200, `${route.path()}: ${JSON.stringify(ok.body)}`)
        const bad = yield* asAdmin(route.method, route.bad, route.method === "GET" ? undefined : { reason: 5 })
        assert.strictEqual(bad.status, 400, `${route.bad}: ${JSON.stringify(bad.body)}`)
        expectError(yield* api.request(route.method, route.path(), { token: other.token, body: route.body }), 403, "MISSING_PERMISSIONS")
        assert.strictEqual((yield* api.request(route.method, route.path(), { body: route.body })).status, 401, route.path())
      }
      // Rejecting needs a reason.
      const rejected = yield* applied
      const reject = `/admin/discovery/applications/${rejected.guildId}/reject`
      expectError(yield* asAdmin("POST", reject, {}), 400, "INVALID_FORM_BODY")
      expectError(yield* asAdmin("POST", reject, { reason: "" }), 400, "INVALID_FORM_BODY")
      expectError(yield* api.request("POST", reject, { token: other.token, body: { reason: "No" } }), 403, "MISSING_PERMISSIONS")
      assert.strictEqual((yield* api.request("POST", reject, { body: { reason: "No" } })).status, 401)
      const ok = yield* asAdmin("POST", reject, { reason: "Not about kites" })
      assert.strictEqual(ok.status, 200, JSON.stringify(ok.body))

      // A user given the ACL reaches the routes.
      yield* setAcls(other.userId, ["admin:authenticate", "discovery:review"])
      const allowed = yield* api.request("GET", "/admin/discovery/applications?status=rejected", { token: other.token })
      assert.strictEqual(allowed.status, 200, JSON.stringify(allowed.body))
      expect(allowed.body).toEqual(expect.arrayContaining([expect.objectContaining({ guild_id: rejected.guildId, status: "rejected" })]))
    }))

  it.effect("approving lists the guild with DISCOVERABLE, its owner sees it approved and its members get GUILD_UPDATE", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const guild = yield* applied
      const { client } = yield* identified(guild.token)

      const pending = yield* asAdmin("GET", "/admin/discovery/applications")
      expect(pending.body).toEqual(expect.arrayContaining([
        expect.objectContaining({ guild_id: guild.guildId, status: "pending", category_type: 7, custom_tags: [guild.tag] })
      ]))
      assert.deepStrictEqual(yield* listedIds(guild), [])

      const approved = yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/approve`, { reason: "Lovely kites" })
      assert.strictEqual(approved.status, 200, JSON.stringify(approved.body))
      expect(approved.body).toMatchObject({ guild_id: guild.guildId, status: "approved", review_reason: "Lovely kites" })
      assert.isString((approved.body as { reviewed_at: unknown }).reviewed_at)

      const listed = yield* listedIds(guild)
      assert.deepStrictEqual(listed.map((g) => g.id), [guild.guildId])
      assert.include(listed[0]?.features ?? [], "DISCOVERABLE")
      expect(yield* ownerSees(guild)).toMatchObject({ status: "approved", review_reason: "Lovely kites" })
      assert.include(yield* featuresOf(guild), "DISCOVERABLE")
      const update = yield* nextMatching(client, "GUILD_UPDATE", (d) =>
        typeof d === "object" && d !== null && "features" in d && Array.isArray(d.features) && d.features.includes("DISCOVERABLE"))
      expect(update.d).toMatchObject({ id: guild.guildId })

      // The guild's audit log and the admin audit log both hold the review.
      expect(yield* auditEntriesOfType(guild.guildId, GUILD_UPDATE)).toMatchObject([
        { reason: "Lovely kites", changes: [{ key: "features", old_value: [], new_value: ["DISCOVERABLE"] }] }
      ])
      const audited = yield* asAdmin("POST", "/admin/audit-logs/search", { target_id: guild.guildId })
      expect(audited.body).toMatchObject({
        logs: [{ action: "approve_discovery_application", target_type: "guild", metadata: { reason: "Lovely kites" } }]
      })

      // Reviewed once only; a guild that never applied has no application.
      expectError(yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/approve`, {}), 400, "DISCOVERY_APPLICATION_ALREADY_REVIEWED")
      expectError(yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/reject`, { reason: "Too late" }), 400, "DISCOVERY_APPLICATION_ALREADY_REVIEWED")
      const stranger = yield* createGuild((yield* api.register()).token)
      expectError(yield* asAdmin("POST", `/admin/discovery/applications/${stranger.guildId}/approve`, {}), 404, "DISCOVERY_APPLICATION_NOT_FOUND")
      expectError(yield* asAdmin("POST", `/admin/discovery/guilds/${stranger.guildId}/remove`, { reason: "x" }), 404, "DISCOVERY_APPLICATION_NOT_FOUND")
    }))

  it.effect("rejecting keeps the guild unlisted; its owner sees why", () =>
    Effect.gen(function*() {
      const guild = yield* applied
      const rejected = yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/reject`, { reason: "Kites are off-topic" })
      assert.strictEqual(rejected.status, 200, JSON.stringify(rejected.body))
      expect(rejected.body).toMatchObject({ guild_id: guild.guildId, status: "rejected", review_reason: "Kites are off-topic" })
      assert.deepStrictEqual(yield* listedIds(guild), [])
      expect(yield* ownerSees(guild)).toMatchObject({ status: "rejected", review_reason: "Kites are off-topic" })
      assert.notInclude(yield* featuresOf(guild), "DISCOVERABLE")
      // Only a listed guild can be removed.
      expectError(yield* asAdmin("POST", `/admin/discovery/guilds/${guild.guildId}/remove`, { reason: "x" }), 404, "DISCOVERY_APPLICATION_NOT_FOUND")
    }))

  it.effect("removing takes a listed guild out of discovery and its DISCOVERABLE feature away", () =>
    Effect.gen(function*() {
      const guild = yield* applied
      assert.strictEqual((yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/approve`, {})).status, 200)
      assert.lengthOf(yield* listedIds(guild), 1)
      const removed = yield* asAdmin("POST", `/admin/discovery/guilds/${guild.guildId}/remove`, { reason: "Spam in the listing" })
      assert.strictEqual(removed.status, 200, JSON.stringify(removed.body))
      expect(removed.body).toMatchObject({ guild_id: guild.guildId, status: "removed", removal_reason: "Spam in the listing" })
      assert.isString((removed.body as { removed_at: unknown }).removed_at)
      assert.deepStrictEqual(yield* listedIds(guild), [])
      expect(yield* ownerSees(guild)).toMatchObject({ status: "removed", removal_reason: "Spam in the listing" })
      assert.notInclude(yield* featuresOf(guild), "DISCOVERABLE")
      const again = yield* asAdmin("GET", "/admin/discovery/applications?status=removed")
      expect(again.body).toEqual(expect.arrayContaining([expect.objectContaining({ guild_id: guild.guildId })]))
    }))

  it.effect("an owner withdrawing a listed guild takes DISCOVERABLE away with the listing", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const guild = yield* applied
      assert.strictEqual((yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/approve`, {})).status, 200)
      assert.include(yield* featuresOf(guild), "DISCOVERABLE")
      const withdrawn = yield* api.request("DELETE", `/guilds/${guild.guildId}/discovery`, { token: guild.token })
      assert.strictEqual(withdrawn.status, 204, JSON.stringify(withdrawn.body))
      assert.deepStrictEqual(yield* listedIds(guild), [])
      assert.notInclude(yield* featuresOf(guild), "DISCOVERABLE")
      assert.isNull(yield* ownerSees(guild))
      expectError(yield* asAdmin("POST", `/admin/discovery/applications/${guild.guildId}/approve`, {}), 404, "DISCOVERY_APPLICATION_NOT_FOUND")
    }))

  it.effect("lists a status's applications oldest first, a page at a time", () =>
    Effect.gen(function*() {
      const first = yield* applied
      const second = yield* applied
      const page = (query: string) =>
        Effect.map(asAdmin("GET", `/admin/discovery/applications?${query}`), (r) => (r.body as Array<{ guild_id: string }>).map((a) => a.guild_id))
      const all = yield* page("status=pending&limit=200")
      const at = all.indexOf(first.guildId)
      assert.isAtLeast(at, 0)
      assert.strictEqual(all[at + 1], second.guildId)
      assert.deepStrictEqual(yield* page(`status=pending&limit=1&cursor=${first.guildId}`), [second.guildId])
      expectError(yield* asAdmin("GET", "/admin/discovery/applications?status=lost"), 400, "INVALID_FORM_BODY")
    }))
})
