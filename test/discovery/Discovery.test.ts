import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { addMember, cast, createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

const APPLICATION = { description: "A guild for people who build lanterns", category_type: 4, custom_tags: ["lanterns", "craft"] }

/** An operator's review (test/admin/discovery tests it). */
const approve = (guildId: string) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.map(
      api.request("POST", `/admin/discovery/applications/${guildId}/approve`, { token: `Admin ${api.adminKey}`, body: {} }),
      (reply) => assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
    ))

const search = (token: string, query: string) =>
  Effect.flatMap(TestApi, (api) => api.request("GET", `/discovery/guilds?${query}`, { token }))

const idsOf = (body: unknown) => (body as { guilds: Array<{ id: string }> }).guilds.map((g) => g.id)

layer(TestApi.layerWith({ DISCOVERY_MIN_MEMBERS: "3" }), { timeout: 120_000, excludeTestServices: true })("discovery", (it) => {
  it.effect("a guild with enough members applies, amends while pending, and is listed once approved", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token, "Lantern Makers")
      const path = `/guilds/${guildId}/discovery`

      const categories = yield* api.request("GET", "/discovery/categories", { token: owner.token })
      assert.strictEqual(categories.status, 200)
      assert.lengthOf(categories.body as Array<unknown>, 9)
      expect((categories.body as Array<unknown>)[4]).toMatchObject({ id: 4, name: "Creative Arts" })

      const early = yield* api.request("GET", path, { token: owner.token })
      assert.deepStrictEqual(early.body, { application: null, eligible: false, min_member_count: 3 })
      const tooSmall = yield* api.request("POST", path, { token: owner.token, body: APPLICATION })
      expectError(tooSmall, 400, "DISCOVERY_INSUFFICIENT_MEMBERS")

      for (const _ of [1, 2]) yield* addMember(guildId, (yield* api.register()).userId)
      const applied = yield* api.request("POST", path, { token: owner.token, body: APPLICATION })
      assert.strictEqual(applied.status, 200, JSON.stringify(applied.body))
      expect(applied.body).toMatchObject({ guild_id: guildId, status: "pending", category_type: 4, custom_tags: ["lanterns", "craft"] })
      const twice = yield* api.request("POST", path, { token: owner.token, body: APPLICATION })
      expect(twice.body).toMatchObject({ code: "DISCOVERY_ALREADY_APPLIED" })

      const amended = yield* api.request("PATCH", path, { token: owner.token, body: { description: "Paper lanterns, made together" } })
      assert.strictEqual(amended.status, 200, JSON.stringify(amended.body))
      expect(amended.body).toMatchObject({ description: "Paper lanterns, made together", custom_tags: ["lanterns", "craft"] })

      // Pending is not listed; approved is, found by its words, its category and its tag.
      assert.notInclude(idsOf((yield* search(owner.token, "query=lanterns")).body), guildId)
      yield* approve(guildId)
      const found = yield* search(owner.token, "query=paper%20lanterns&sort_by=relevance")
      assert.strictEqual(found.status, 200, JSON.stringify(found.body))
      assert.include(idsOf(found.body), guildId)
      const listed = (found.body as { guilds: Array<Record<string, unknown>>; total: number }).guilds.find((g) => g.id === guildId)
      expect(listed).toMatchObject({ name: "Lantern Makers", member_count: 3, online_count: 0, category_type: 4 })
      assert.include(idsOf((yield* search(owner.token, "query=lantern%20makers")).body), guildId)
      assert.include(idsOf((yield* search(owner.token, "category=4&tag=craft")).body), guildId)
      assert.notInclude(idsOf((yield* search(owner.token, "category=1")).body), guildId)
      assert.notInclude(idsOf((yield* search(owner.token, "query=submarines")).body), guildId)

      const reviewed = yield* api.request("PATCH", path, { token: owner.token, body: { category_type: 1 } })
      expect(reviewed.body).toMatchObject({ code: "DISCOVERY_APPLICATION_ALREADY_REVIEWED" })

      // Anyone signed in may join a listed guild from discovery.
      const visitor = yield* api.register()
      const joined = yield* api.request("POST", `/discovery/guilds/${guildId}/join`, { token: visitor.token })
      assert.strictEqual(joined.status, 204, JSON.stringify(joined.body))
      const member = yield* api.request("GET", `/guilds/${guildId}/members/@me`, { token: visitor.token })
      assert.strictEqual(member.status, 200, JSON.stringify(member.body))
      const rows = yield* queryAt(api.databaseUrl, "SELECT join_source_type FROM guild_members WHERE guild_id = $1 AND user_id = $2", [
        guildId,
        visitor.userId
      ])
      assert.deepStrictEqual(rows, [{ join_source_type: 3 }])

      const withdrawn = yield* api.request("DELETE", path, { token: owner.token })
      assert.strictEqual(withdrawn.status, 204)
      assert.notInclude(idsOf((yield* search(owner.token, "query=lanterns")).body), guildId)
      const notListed = yield* api.request("POST", `/discovery/guilds/${guildId}/join`, { token: (yield* api.register()).token })
      expectError(notListed, 403, "DISCOVERY_NOT_DISCOVERABLE")
    }))

  it.effect("refuses bad input with 400 and the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const short = yield* api.request("POST", `/guilds/${guildId}/discovery`, { token: owner.token, body: { description: "short", category_type: 4 } })
      expectError(short, 400, "INVALID_FORM_BODY")
      const category = yield* api.request("POST", `/guilds/${guildId}/discovery`, { token: owner.token, body: { ...APPLICATION, category_type: 9 } })
      assert.strictEqual(category.status, 400)
      for (const query of ["limit=49", "category=12", "sort_by=alphabet", "offset=-1"]) {
        const reply = yield* search(owner.token, query)
        assert.strictEqual(reply.status, 400, query)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
      }
      const anonymous = yield* api.request("GET", "/discovery/guilds")
      assert.strictEqual(anonymous.status, 401)
    }))

  it.effect("only members see the status, and only MANAGE_GUILD applies, amends or withdraws", () =>
    Effect.gen(function*() {
      const { api, member, stranger, guildId } = yield* cast()
      const path = `/guilds/${guildId}/discovery`
      const strangerStatus = yield* api.request("GET", path, { token: stranger.token })
      expectError(strangerStatus, 403, "MISSING_ACCESS")

      assert.strictEqual((yield* api.request("GET", path, { token: member.token })).status, 200)
      for (const [method, body] of [["POST", APPLICATION], ["PATCH", { category_type: 2 }], ["DELETE", undefined]] as const) {
        const refused = yield* api.request(method, path, { token: member.token, body })
        assert.strictEqual(refused.status, 403, method)
        expect(refused.body).toMatchObject({ code: "MISSING_PERMISSIONS" })
      }

      // A manager may (owner, member and manager make the three members needed).
      const manager = yield* api.register()
      yield* addMember(guildId, manager.userId, Permission.MANAGE_GUILD)
      const applied = yield* api.request("POST", path, { token: manager.token, body: APPLICATION })
      assert.strictEqual(applied.status, 200, JSON.stringify(applied.body))
      assert.strictEqual((yield* api.request("DELETE", path, { token: manager.token })).status, 204)
      const none = yield* api.request("PATCH", path, { token: manager.token, body: { category_type: 2 } })
      expectError(none, 404, "DISCOVERY_APPLICATION_NOT_FOUND")
    }))
})
