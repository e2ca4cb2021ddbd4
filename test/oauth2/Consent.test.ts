import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { Permission } from "../../src/model/Permissions.ts"
import { auditEntries } from "../support/Audit.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { addMember, cast, createGuild } from "../support/Cast.ts"
import { createApplication, PASSWORD } from "./Fixtures.ts"

const consent = (token: string, body: Record<string, unknown>) =>
  Effect.flatMap(TestApi, (api) => api.request("POST", "/oauth2/authorize/consent", { token, body }))

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("adding bots to guilds through OAuth2 consent", (it) => {
  it.effect("a member with MANAGE_GUILD adds a bot: it is listed as a member with a role for its permissions", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const developer = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const app = yield* createApplication(developer.token, { name: "Helper" })

      const added = yield* consent(owner.token, {
        client_id: app.id,
        scope: "bot",
        guild_id: guildId,
        permissions: (Permission.KICK_MEMBERS | Permission.SEND_MESSAGES).toString()
      })
      assert.strictEqual(added.status, 200, JSON.stringify(added.body))
      expect(added.body).toMatchObject({ redirect_to: expect.stringContaining(`guild_id=${guildId}`) })

      const members = yield* api.request("GET", `/guilds/${guildId}/members?limit=100`, { token: owner.token })
      const bot = (members.body as ReadonlyArray<{ user: { id: string; bot?: boolean }; roles: ReadonlyArray<string> }>)
        .find((m) => m.user.id === app.id)
      expect(bot).toMatchObject({ user: { id: app.id, bot: true, username: "Helper" } })
      const roles = yield* api.request("GET", `/guilds/${guildId}/roles`, { token: owner.token })
      const role = (roles.body as ReadonlyArray<{ id: string; name: string; permissions: string }>).find((r) => r.id === bot?.roles[0])
      expect(role).toMatchObject({ name: "Helper", permissions: (Permission.KICK_MEMBERS | Permission.SEND_MESSAGES).toString() })
      const entries = yield* auditEntries(guildId)
      expect(entries.filter((e) => e.action_type === 28)).toMatchObject([{ target_id: app.id, user_id: owner.userId }])

      // The bot, now a member, reads the guild with its own token.
      const seen = yield* api.request("GET", `/guilds/${guildId}`, { token: app.botToken })
      assert.strictEqual(seen.status, 200, JSON.stringify(seen.body))
      expectError(yield* consent(owner.token, { client_id: app.id, scope: "bot", guild_id: guildId }), 400, "BOT_ALREADY_IN_GUILD")
    }))

  it.effect("needs MANAGE_GUILD in the guild, and the permissions it grants", () =>
    Effect.gen(function*() {
      const { api, owner, member, stranger: outsider, guildId } = yield* cast()
      const manager = yield* api.register()
      yield* addMember(guildId, manager.userId, Permission.MANAGE_GUILD)
      const app = yield* createApplication(owner.token)
      const body = { client_id: app.id, scope: "bot", guild_id: guildId }

      expectError(yield* consent(member.token, body), 403, "MISSING_PERMISSIONS")
      expectError(yield* consent(outsider.token, body), 403, "MISSING_ACCESS")
      expectError(yield* consent(manager.token, { ...body, permissions: Permission.KICK_MEMBERS.toString() }), 403, "MISSING_PERMISSIONS")
      const members = (yield* api.request("GET", `/guilds/${guildId}/members?limit=100`, { token: owner.token })).body as ReadonlyArray<{ user: { id: string } }>
      assert.isFalse(members.some((m) => m.user.id === app.id))

      assert.strictEqual((yield* consent(manager.token, body)).status, 200)
      const after = (yield* api.request("GET", `/guilds/${guildId}/members?limit=100`, { token: owner.token })).body as ReadonlyArray<{ user: { id: string } }>
      assert.isTrue(after.some((m) => m.user.id === app.id))
    }))

  it.effect("deleting the application (sudo mode) takes its bot out of its guilds and ends its token", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const { guildId } = yield* createGuild(owner.token)
      const app = yield* createApplication(owner.token)
      assert.strictEqual((yield* consent(owner.token, { client_id: app.id, scope: "bot", guild_id: guildId })).status, 200)
      const path = `/oauth2/applications/${app.id}`
      expectError(yield* api.request("DELETE", path, { token: owner.token }), 403, "SUDO_MODE_REQUIRED")
      const deleted = yield* api.request("DELETE", path, { token: owner.token, body: { password: PASSWORD } })
      assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
      const members = (yield* api.request("GET", `/guilds/${guildId}/members?limit=100`, { token: owner.token })).body as ReadonlyArray<{ user: { id: string } }>
      assert.isFalse(members.some((m) => m.user.id === app.id))
      expectError(yield* api.request("GET", "/users/@me", { token: app.botToken }), 401, "UNAUTHORIZED")
      expectError(yield* api.request("GET", path, { token: owner.token }), 404, "UNKNOWN_APPLICATION")
    }))

  it.effect("refuses a private bot to others, bad scopes, and bad input", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const other = yield* api.register()
      const { guildId } = yield* createGuild(other.token)
      const app = yield* createApplication(owner.token, { bot_public: false })
      expectError(yield* consent(other.token, { client_id: app.id, scope: "bot", guild_id: guildId }), 403, "BOT_IS_PRIVATE")
      expectError(yield* consent(other.token, { client_id: app.id, scope: "bot admin", guild_id: guildId }), 400, "INVALID_SCOPE")
      expectError(yield* consent(other.token, { client_id: app.id, scope: " " }), 400, "INVALID_SCOPE")
      expectError(yield* consent(owner.token, { client_id: app.id, scope: "bot" }), 400, "INVALID_FORM_BODY")
      expectError(yield* consent(owner.token, { client_id: app.id, scope: "identify" }), 400, "REDIRECT_URI_REQUIRED_FOR_NON_BOT")
      expectError(
        yield* consent(owner.token, { client_id: app.id, scope: "identify", redirect_uri: "https://evil.example/" }),
        400,
        "INVALID_REDIRECT_URI"
      )
      for (const body of [{ scope: "bot" }, { client_id: "x", scope: "bot" }, { client_id: app.id, scope: "bot", permissions: "-1" }]) {
        expectError(yield* consent(owner.token, body), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* consent(owner.token, { client_id: "1234567890", scope: "bot", guild_id: guildId }), 404, "UNKNOWN_APPLICATION")
      expectError(yield* api.request("POST", "/oauth2/authorize/consent", { body: { client_id: app.id, scope: "bot" } }), 401, "UNAUTHORIZED")
      expectError(yield* consent(app.botToken, { client_id: app.id, scope: "bot", guild_id: guildId }), 403, "ACCESS_DENIED")
    }))
})
