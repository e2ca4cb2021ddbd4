import { assert } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, TestApi } from "../../support/Api.ts"
import { setAcls } from "../../support/Acls.ts"
import { guildOfTwo } from "../../invites/Fixtures.ts"
import { layerWithMedia } from "../../media/MediaLayer.ts"

const admin = (key: string) => `Admin ${key}`

interface Fixture {
  readonly guildId: string
  readonly ownerId: string
  readonly memberId: string
  /** A user who is in no guild. */
  readonly strangerId: string
}

interface Case {
  readonly method: "GET" | "POST"
  readonly path: (f: Fixture) => string
  readonly body?: (f: Fixture) => unknown
  /** A request that must fail validation: a bad body, or for a GET a bad path. */
  readonly bad: { readonly path?: string; readonly body?: unknown }
  readonly status: number
}

const post = (path: string, body: (f: Fixture) => unknown, bad: unknown, status = 200): Case =>
  ({ method: "POST", path: () => path, body, bad: { body: bad }, status })

/** Every route of the group: a good request on a fresh guild (and its status), and a bad one. */
const cases: ReadonlyArray<Case> = [
  post("/admin/guilds/lookup", (f) => ({ guild_id: f.guildId }), { guild_id: "abc" }),
  post("/admin/guilds/search", () => ({ query: "Hall", limit: 5 }), { limit: 0 }),
  post("/admin/guilds/list-members", (f) => ({ guild_id: f.guildId, limit: 10 }), { guild_id: "1", offset: -1 }),
  { method: "GET", path: (f) => `/admin/guilds/${f.guildId}/emojis`, bad: { path: "/admin/guilds/abc/emojis" }, status: 200 },
  { method: "GET", path: (f) => `/admin/guilds/${f.guildId}/stickers`, bad: { path: "/admin/guilds/abc/stickers" }, status: 200 },
  post("/admin/guilds/update-name", (f) => ({ guild_id: f.guildId, name: "Renamed" }), { guild_id: "1", name: "" }),
  post("/admin/guilds/update-settings", (f) => ({ guild_id: f.guildId, verification_level: 2 }), { guild_id: "1", mfa_level: 7 }),
  post("/admin/guilds/update-features", (f) => ({ guild_id: f.guildId, add_features: ["VERIFIED"] }), {
    guild_id: "1",
    add_features: [""]
  }),
  post("/admin/guilds/update-vanity", (f) => ({ guild_id: f.guildId, vanity_url_code: `v${f.guildId.slice(-8)}` }), {
    guild_id: "1",
    vanity_url_code: "Not A Code"
  }),
  post("/admin/guilds/clear-fields", (f) => ({ guild_id: f.guildId, fields: ["icon", "banner"] }), {
    guild_id: "1",
    fields: ["name"]
  }, 204),
  post("/admin/guilds/transfer-ownership", (f) => ({ guild_id: f.guildId, new_owner_id: f.memberId }), { guild_id: "1" }),
  post("/admin/guilds/delete", (f) => ({ guild_id: f.guildId }), {}),
  post("/admin/guilds/ban-member", (f) => ({ guild_id: f.guildId, user_id: f.memberId, delete_message_days: 1 }), {
    guild_id: "1",
    user_id: "2",
    delete_message_days: 8
  }, 204),
  post("/admin/guilds/kick-member", (f) => ({ guild_id: f.guildId, user_id: f.memberId }), { guild_id: "1", user_id: "x" }, 204),
  post("/admin/guilds/force-add-user", (f) => ({ guild_id: f.guildId, user_id: f.strangerId }), { user_id: "1" }),
  post("/admin/bulk/add-guild-members", (f) => ({ guild_id: f.guildId, user_ids: [f.strangerId] }), {
    guild_id: "1",
    user_ids: []
  }),
  post("/admin/bulk/update-guild-features", (f) => ({ guild_ids: [f.guildId], remove_features: ["VERIFIED"] }), {
    guild_ids: ["1"],
    add_features: "VERIFIED"
  })
]

layerWithMedia("admin-guild-routes")("admin guild routes", (it) => {
  it.effect("every route: served to an operator, 400 on bad input, 403 without its ACL, 401 anonymous", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const other = yield* api.register()
      // Reaches /admin, but holds none of these routes' ACLs.
      yield* setAcls(other.userId, ["admin:authenticate", "user:lookup"])
      for (const c of cases) {
        const { owner, member, guildId } = yield* guildOfTwo
        const stranger = yield* api.register()
        const f: Fixture = { guildId, ownerId: owner.userId, memberId: member.userId, strangerId: stranger.userId }
        const path = c.path(f)
        const body = c.body?.(f)
        const name = `${c.method} ${path}`
        expectError(yield* api.request(c.method, path, { token: other.token, body }), 403, "MISSING_PERMISSIONS")
        assert.strictEqual((yield* api.request(c.method, path, { body })).status, 401, name)
        const ok = yield* api.request(c.method, path, { token: admin(api.adminKey), body })
        assert.strictEqual(ok.status, c.status, `${name}: ${JSON.stringify(ok.body)}`)
        const bad = yield* api.request(c.method, c.bad.path ?? path, { token: admin(api.adminKey), body: c.bad.body })
        expectError(bad, 400, "INVALID_FORM_BODY")
      }
    }))

  it.effect("an API key holding other ACLs is refused; one holding the route's ACL is served", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { guildId } = yield* guildOfTwo
      const key = (acls: ReadonlyArray<string>) =>
        Effect.map(
          api.request("POST", "/admin/api-keys", { token: admin(api.adminKey), body: { name: "guilds", acls } }),
          (reply) => {
            assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
            const secret = (reply.body as { key: string }).key
            return admin(secret)
          }
        )
      const lookupOnly = yield* key(["admin:authenticate", "guild:lookup"])
      const rename = { guild_id: guildId, name: "Not by this key" }
      expectError(yield* api.request("POST", "/admin/guilds/update-name", { token: lookupOnly, body: rename }), 403, "MISSING_PERMISSIONS")
      const lookup = yield* api.request("POST", "/admin/guilds/lookup", { token: lookupOnly, body: { guild_id: guildId } })
      assert.strictEqual(lookup.status, 200, JSON.stringify(lookup.body))
    }))
})
