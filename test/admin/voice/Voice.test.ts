import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomBytes } from "node:crypto"
import { setAcls } from "../../support/Acls.ts"
import { expectError, TestApi } from "../../support/Api.ts"
import { createGuild } from "../../support/Cast.ts"
import { queryAt } from "../../support/Postgres.ts"

const api = TestApi.layerWith({ VOICE_SECRET_KEY: randomBytes(32).toString("hex") })

const asAdmin = (path: string, body?: unknown) =>
  Effect.flatMap(TestApi, (t) => t.request("POST", path, { token: `Admin ${t.adminKey}`, body }))

const ok = (path: string, body?: unknown) =>
  Effect.gen(function*() {
    const reply = yield* asAdmin(path, body)
    assert.strictEqual(reply.status, 200, `${path}: ${JSON.stringify(reply.body)}`)
    return reply.body as Record<string, unknown>
  })

const region = (id: string, extra: Record<string, unknown> = {}) =>
  ({ id, name: `Region ${id}`, emoji: "🌍", latitude: 48.85, longitude: 2.35, ...extra })
const server = (regionId: string, serverId: string, extra: Record<string, unknown> = {}) => ({
  region_id: regionId,
  server_id: serverId,
  endpoint: `wss://${serverId}.voice.example.test`,
  api_key: `key-${serverId}`,
  api_secret: `secret-${serverId}-do-not-echo`,
  ...extra
})

interface Case {
  readonly path: string
  readonly body: () => unknown
  readonly bad: unknown
}

let made = 0
/** Every route with a body it accepts (on fixtures made for it) and one it refuses. */
const cases: ReadonlyArray<Case> = [
  { path: "/admin/voice/regions/create", body: () => region(`acl-${++made}`), bad: region("has space") },
  { path: "/admin/voice/regions/update", body: () => ({ id: "fixture", name: "Renamed" }), bad: { id: "fixture", latitude: 91 } },
  { path: "/admin/voice/regions/get", body: () => ({ id: "fixture" }), bad: { id: 5 } },
  { path: "/admin/voice/regions/list", body: () => ({}), bad: { include_servers: "yes" } },
  {
    path: "/admin/voice/servers/create",
    body: () => server("fixture", `acl-${++made}`),
    bad: server("fixture", "bad-endpoint", { endpoint: "ftp://nope" })
  },
  { path: "/admin/voice/servers/update", body: () => ({ region_id: "fixture", server_id: "fixture-1", is_active: true }), bad: { region_id: "fixture" } },
  { path: "/admin/voice/servers/get", body: () => ({ region_id: "fixture", server_id: "fixture-1" }), bad: {} },
  { path: "/admin/voice/servers/list", body: () => ({ region_id: "fixture" }), bad: { region_id: "x".repeat(65) } },
  { path: "/admin/voice/servers/delete", body: () => server("fixture", `acl-${made}`), bad: { region_id: "fixture", server_id: "\u0000" } },
  { path: "/admin/voice/regions/delete", body: () => ({ id: `acl-1` }), bad: { id: "" } }
]

layer(api, { timeout: 120_000, excludeTestServices: true })("admin voice regions and servers", (it) => {
  it.effect("every route: served to an operator, 400 on a bad body, 403 without its ACL, 401 anonymous", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      yield* ok("/admin/voice/regions/create", region("fixture"))
      yield* ok("/admin/voice/servers/create", server("fixture", "fixture-1"))
      const other = yield* t.register()
      yield* setAcls(other.userId, ["admin:authenticate", "user:lookup"])
      for (const c of cases) {
        const body = c.body()
        const served = yield* asAdmin(c.path, body)
        assert.strictEqual(served.status, 200, `${c.path}: ${JSON.stringify(served.body)}`)
        expectError(yield* asAdmin(c.path, c.bad), 400, "INVALID_FORM_BODY")
        expectError(yield* t.request("POST", c.path, { token: other.token, body }), 403, "MISSING_PERMISSIONS")
        assert.strictEqual((yield* t.request("POST", c.path, { body })).status, 401, c.path)
      }
      // The route's own ACL opens it, and only it.
      yield* setAcls(other.userId, ["admin:authenticate", "voice:region:list"])
      assert.strictEqual((yield* t.request("POST", "/admin/voice/regions/list", { token: other.token, body: {} })).status, 200)
      expectError(yield* t.request("POST", "/admin/voice/regions/create", { token: other.token, body: region("nope") }), 403, "MISSING_PERMISSIONS")
    }))

  it.effect("regions and servers: create, read, update, delete; one default; secrets sealed and never answered; audited", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const created = yield* ok("/admin/voice/regions/create", region("eu-west", { is_default: true, required_guild_features: ["VERIFIED"] }))
      expect(created.region).toMatchObject({
        id: "eu-west",
        name: "Region eu-west",
        emoji: "🌍",
        latitude: 48.85,
        longitude: 2.35,
        is_default: true,
        vip_only: false,
        required_guild_features: ["VERIFIED"],
        allowed_guild_ids: [],
        allowed_user_ids: []
      })
      expectError(yield* asAdmin("/admin/voice/regions/create", region("eu-west")), 400, "CONFLICT")
      // A second default takes the flag from the first.
      yield* ok("/admin/voice/regions/create", region("us-east-2", { is_default: true }))
      expect((yield* ok("/admin/voice/regions/get", { id: "eu-west" })).region).toMatchObject({ is_default: false, servers: [] })

      const updated = yield* ok("/admin/voice/regions/update", { id: "eu-west", name: "EU West", allowed_user_ids: ["100000000000000001"] })
      expect(updated.region).toMatchObject({ name: "EU West", required_guild_features: ["VERIFIED"], allowed_user_ids: ["100000000000000001"] })
      expectError(yield* asAdmin("/admin/voice/regions/update", { id: "nowhere", name: "x" }), 404, "UNKNOWN_VOICE_REGION")

      const made = yield* ok("/admin/voice/servers/create", server("eu-west", "eu-1", { vip_only: true }))
      expect(made.server).toMatchObject({ region_id: "eu-west", server_id: "eu-1", endpoint: "wss://eu-1.voice.example.test", is_active: true, vip_only: true })
      expectError(yield* asAdmin("/admin/voice/servers/create", server("nowhere", "x-1")), 404, "UNKNOWN_VOICE_REGION")
      expectError(yield* asAdmin("/admin/voice/servers/create", server("eu-west", "eu-1")), 400, "CONFLICT")
      const changed = yield* ok("/admin/voice/servers/update", { region_id: "eu-west", server_id: "eu-1", api_secret: "rotated-secret", is_active: false })
      expect(changed.server).toMatchObject({ is_active: false, vip_only: true })
      expectError(yield* asAdmin("/admin/voice/servers/update", { region_id: "eu-west", server_id: "none", is_active: true }), 404, "UNKNOWN_VOICE_SERVER")

      // Nothing answered carries the key's secret; Postgres holds it sealed.
      const listed = yield* ok("/admin/voice/regions/list", { include_servers: true })
      const answers = JSON.stringify([made, changed, listed, yield* ok("/admin/voice/servers/list", { region_id: "eu-west" })])
      expect(answers).not.toContain("secret")
      const [row] = yield* queryAt(t.databaseUrl, "SELECT api_secret_sealed FROM voice_servers WHERE server_id = 'eu-1'")
      const sealed = Buffer.from(row?.api_secret_sealed as Uint8Array)
      expect(sealed.length).toBeGreaterThan(16)
      expect(sealed.toString("latin1")).not.toContain("rotated-secret")
      expect(listed.regions).toEqual(expect.arrayContaining([
        expect.objectContaining({ id: "eu-west", servers: [expect.objectContaining({ server_id: "eu-1" })] }),
        expect.objectContaining({ id: "us-east-2", is_default: true, servers: [] })
      ]))
      expect(answers).not.toContain("api_key")

      assert.deepStrictEqual(yield* ok("/admin/voice/servers/delete", { region_id: "eu-west", server_id: "eu-1" }), { success: true })
      assert.deepStrictEqual(yield* ok("/admin/voice/servers/get", { region_id: "eu-west", server_id: "eu-1" }), { server: null })
      yield* ok("/admin/voice/servers/create", server("eu-west", "eu-2"))
      assert.deepStrictEqual(yield* ok("/admin/voice/regions/delete", { id: "eu-west" }), { success: true })
      // Its servers went with it.
      assert.deepStrictEqual(yield* ok("/admin/voice/servers/list", { region_id: "eu-west" }), { servers: [] })
      assert.deepStrictEqual(yield* ok("/admin/voice/regions/get", { id: "eu-west" }), { region: null })
      expectError(yield* asAdmin("/admin/voice/regions/delete", { id: "eu-west" }), 404, "UNKNOWN_VOICE_REGION")

      const audit = yield* ok("/admin/audit-logs/search", { target_id: "eu-west/eu-1" })
      const actions = (audit.logs as ReadonlyArray<{ action: string; metadata: Record<string, string> }>).map((l) => l.action)
      expect(actions).toEqual(expect.arrayContaining(["create_voice_server", "update_voice_server", "delete_voice_server"]))
      expect(JSON.stringify(audit.logs)).not.toContain("rotated-secret")
    }))

  it.effect("GET /channels/{id}/rtc-regions and rtc_region: the configured regions the guild and user may use", () =>
    Effect.gen(function*() {
      const t = yield* TestApi
      const owner = yield* t.register()
      const { guildId } = yield* createGuild(owner.token)
      const voice = yield* t.request("POST", `/guilds/${guildId}/channels`, { token: owner.token, body: { type: 2, name: "Talk" } })
      const channelId = (voice.body as { id: string }).id
      // Earlier tests left "us-east-2" and "fixture"; these add rules.
      yield* ok("/admin/voice/regions/create", region("vip", { vip_only: true }))
      yield* ok("/admin/voice/regions/create", region("verified", { required_guild_features: ["VERIFIED"] }))
      yield* ok("/admin/voice/regions/create", region("mine", { allowed_user_ids: [owner.userId] }))
      yield* ok("/admin/voice/regions/create", region("theirs", { allowed_guild_ids: ["100000000000000009"] }))
      const regions = () =>
        Effect.map(t.request("GET", `/channels/${channelId}/rtc-regions`, { token: owner.token }), (r) => {
          assert.strictEqual(r.status, 200, JSON.stringify(r.body))
          return (r.body as ReadonlyArray<{ id: string }>).map((x) => x.id)
        })
      expect(yield* regions()).toEqual(["fixture", "mine", "us-east-2"])
      expect((yield* t.request("GET", `/channels/${channelId}/rtc-regions`, { token: owner.token })).body).toContainEqual({
        id: "mine",
        name: "Region mine",
        emoji: "🌍"
      })

      const pin = (rtc_region: string) => t.request("PATCH", `/channels/${channelId}`, { token: owner.token, body: { rtc_region } })
      assert.strictEqual((yield* pin("mine")).status, 200)
      expect((yield* pin("vip")).body).toMatchObject({ errors: [{ path: "rtc_region", code: "INVALID_OR_RESTRICTED_RTC_REGION" }] })
      // Configured regions replace the four defaults.
      expect((yield* pin("us-east")).body).toMatchObject({ errors: [{ path: "rtc_region", code: "INVALID_RTC_REGION" }] })

      // The guild made VIP and verified: those regions open to it.
      yield* ok("/admin/guilds/update-features", { guild_id: guildId, add_features: ["VIP_VOICE", "VERIFIED"] })
      expect(yield* regions()).toEqual(["fixture", "mine", "us-east-2", "verified", "vip"])
      const pinned = yield* pin("vip")
      assert.strictEqual(pinned.status, 200, JSON.stringify(pinned.body))
      expect(pinned.body).toMatchObject({ rtc_region: "vip" })

      // Anonymous and outsiders are refused as for the channel itself.
      assert.strictEqual((yield* t.request("GET", `/channels/${channelId}/rtc-regions`)).status, 401)
      const stranger = yield* t.register()
      expect((yield* t.request("GET", `/channels/${channelId}/rtc-regions`, { token: stranger.token })).status).toBe(403)
    }))
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("admin voice without VOICE_SECRET_KEY", (it) => {
  it.effect("regions are kept; a server, whose secret could not be sealed, is refused with 503", () =>
    Effect.gen(function*() {
      yield* ok("/admin/voice/regions/create", region("keyless"))
      expectError(yield* asAdmin("/admin/voice/servers/create", server("keyless", "k-1")), 503, "FEATURE_TEMPORARILY_DISABLED")
      assert.deepStrictEqual(yield* ok("/admin/voice/servers/list", { region_id: "keyless" }), { servers: [] })
    }))
})
