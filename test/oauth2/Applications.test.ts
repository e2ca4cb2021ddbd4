import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer, Option, Redacted } from "effect"
import { randomBytes } from "node:crypto"
import { Passwords } from "../../src/auth/Passwords.ts"
import { SessionCache } from "../../src/auth/SessionCache.ts"
import { Sessions } from "../../src/auth/Sessions.ts"
import { UserEvents } from "../../shards/UserEvents.ts"
import { AppConfig } from "../../src/platform/Config.ts"
import { resolveToken } from "../../src/http/AuthenticationLive.ts"
import { BotTokens } from "../../src/oauth2/BotTokens.ts"
import { Database } from "../../src/platform/Database.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { createApplication, PASSWORD } from "./Fixtures.ts"

/** What `resolveToken` needs, in this process, over the test server's database (as the server reads it). */
const tokenServices = (url: string) =>
  Layer.mergeAll(Sessions.layer, BotTokens.layer).pipe(
    // A login here is told to nobody: no gateway listens in this test process.
    Layer.provide([UserEvents.layerLocal, SessionCache.layerLocal]),
    Layer.provide(Passwords.layer),
    Layer.provide(Database.layer),
    Layer.provide(AppConfig.layerWith({ databaseUrl: Option.some(Redacted.make(url)) }))
  )

const PNG = "data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("OAuth2 applications and bot tokens over HTTP", (it) => {
  it.effect("creates an application with its bot user; the bot token authenticates as the bot", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const created = yield* api.request("POST", "/oauth2/applications", {
        token: owner.token,
        body: { name: "Weather Bot!", redirect_uris: ["https://example.com/callback"] }
      })
      assert.strictEqual(created.status, 200, JSON.stringify(created.body))
      const id = field(created.body, "id")
      expect(created.body).toMatchObject({
        name: "Weather Bot!",
        redirect_uris: ["https://example.com/callback"],
        bot_public: true,
        bot_require_code_grant: false,
        bot: { id, username: "Weather_Bot", bio: null, flags: 0 }
      })
      const token = field((created.body as { bot: unknown }).bot, "token")
      assert.match(token, new RegExp(`^${id}\\.[A-Za-z0-9_-]{43}$`))
      const stored = yield* queryAt(api.databaseUrl, "SELECT bot, email FROM users WHERE id = $1", [id])
      assert.deepStrictEqual(stored, [{ bot: true, email: null }])
      const hashes = yield* queryAt(api.databaseUrl, "SELECT bot_token_hash, client_secret_hash FROM applications WHERE id = $1", [id])
      assert.match(String(hashes[0]?.bot_token_hash), /^\$argon2id\$/)
      assert.notInclude(JSON.stringify(hashes), token.slice(token.indexOf(".") + 1))

      const me = yield* api.request("GET", "/users/@me", { token: `Bot ${token}` })
      assert.strictEqual(me.status, 200, JSON.stringify(me.body))
      expect(me.body).toMatchObject({ id, username: "Weather_Bot", bot: true })
      const mine = yield* api.request("GET", "/applications/@me", { token: `Bot ${token}` })
      expect(mine.body).toMatchObject({ id, name: "Weather Bot!", owner: { id: owner.userId }, bot: { id } })
      const viaOauth2 = yield* api.request("GET", "/oauth2/applications/@me", { token: `Bot ${token}` })
      expect(viaOauth2.body).toMatchObject({ id, owner: { id: owner.userId } })

      const listed = yield* api.request("GET", "/oauth2/applications/@me", { token: owner.token })
      expect(listed.body).toMatchObject([{ id, name: "Weather Bot!" }])
      assert.isUndefined((listed.body as ReadonlyArray<Record<string, unknown>>)[0]?.client_secret)
      const alsoListed = yield* api.request("GET", "/users/@me/applications", { token: owner.token })
      expect(alsoListed.body).toMatchObject([{ id }])
      expectError(yield* api.request("GET", "/applications/@me", { token: owner.token }), 401, "INVALID_TOKEN")
      const shown = yield* api.request("GET", `/oauth2/applications/${id}/public`)
      expect(shown.body).toMatchObject({ id, name: "Weather Bot!", bot: { id }, scopes: ["identify", "email", "guilds", "connections", "bot"] })
    }))

  it.effect("resets the bot token in sudo mode: the old token stops working, the new one works", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const app = yield* createApplication(owner.token)
      const path = `/oauth2/applications/${app.id}/bot/reset-token`
      expectError(yield* api.request("POST", path, { token: owner.token }), 403, "SUDO_MODE_REQUIRED")
      expectError(yield* api.request("POST", path, { token: owner.token, body: { password: "wrong password" } }), 400, "INVALID_FORM_BODY")
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: app.botToken })).status, 200)

      const reset = yield* api.request("POST", path, { token: owner.token, body: { password: PASSWORD } })
      assert.strictEqual(reset.status, 200, JSON.stringify(reset.body))
      expect(reset.body).toMatchObject({ bot: { id: app.id } })
      const fresh = `Bot ${field(reset.body, "token")}`
      expectError(yield* api.request("GET", "/users/@me", { token: app.botToken }), 401, "UNAUTHORIZED")
      const me = yield* api.request("GET", "/users/@me", { token: fresh })
      expect(me.body).toMatchObject({ id: app.id, bot: true })

      const secret = yield* api.request("POST", `/oauth2/applications/${app.id}/client-secret/reset`, {
        token: owner.token,
        body: { password: PASSWORD }
      })
      assert.strictEqual(secret.status, 200, JSON.stringify(secret.body))
      assert.notStrictEqual(field(secret.body, "client_secret"), app.clientSecret)
    }))

  it.effect("refuses wrong and malformed bot tokens with 401", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const app = yield* createApplication(owner.token)
      const wrongSecret = `Bot ${app.id}.${randomBytes(32).toString("base64url")}`
      const unknownApp = `Bot 1234567890.${randomBytes(32).toString("base64url")}`
      for (const token of [wrongSecret, unknownApp, "Bot nonsense", "Bot ", app.botToken.slice(4) + "x", `Bearer ${app.botToken.slice(4)}`]) {
        expectError(yield* api.request("GET", "/users/@me", { token }), 401, "UNAUTHORIZED")
      }
      // A bot token is never an operator's credential.
      expectError(yield* api.request("GET", "/admin/gateway/stats", { token: app.botToken }), 401, "UNAUTHORIZED")
    }))

  it.effect("updates the application and its bot; only the owner may read or change it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      const stranger = yield* api.register()
      const app = yield* createApplication(owner.token)
      const patched = yield* api.request("PATCH", `/oauth2/applications/${app.id}`, {
        token: owner.token,
        body: { name: "Renamed", bot_public: false, redirect_uris: ["https://a.example/cb"] }
      })
      expect(patched.body).toMatchObject({ id: app.id, name: "Renamed", bot_public: false, redirect_uris: ["https://a.example/cb"] })
      const botSelf = Effect.map(api.request("GET", "/users/@me", { token: app.botToken }), (reply) => reply.body)
      expect(yield* botSelf).toMatchObject({ id: app.id, bio: null })
      const bot = yield* api.request("PATCH", `/oauth2/applications/${app.id}/bot`, {
        token: owner.token,
        body: { username: "renamed_bot", discriminator: "42", bio: "I forecast", avatar: PNG, bot_flags: 16 }
      })
      assert.strictEqual(bot.status, 200, JSON.stringify(bot.body))
      // The bot's own view changes with it: the change went through its user's actor.
      expect(yield* botSelf).toMatchObject({ id: app.id, username: "renamed_bot", discriminator: "0042", bio: "I forecast" })
      expect(bot.body).toMatchObject({ id: app.id, username: "renamed_bot", discriminator: "0042", bio: "I forecast", flags: 16 })
      assert.match(field(bot.body, "avatar"), /^[0-9a-f]{32}$/)
      expect((yield* api.request("GET", `/oauth2/applications/${app.id}`, { token: owner.token })).body).toMatchObject({
        name: "Renamed",
        bot: { username: "renamed_bot", flags: 16 }
      })

      expectError(yield* api.request("GET", `/oauth2/applications/${app.id}`, { token: stranger.token }), 403, "APPLICATION_NOT_OWNED")
      for (const [method, path, body] of [
        ["PATCH", `/oauth2/applications/${app.id}`, { name: "Mine now" }],
        ["PATCH", `/oauth2/applications/${app.id}/bot`, { username: "stolen" }],
        ["POST", `/oauth2/applications/${app.id}/bot/reset-token`, { password: PASSWORD }],
        ["POST", `/oauth2/applications/${app.id}/client-secret/reset`, { password: PASSWORD }]
      ] as const) {
        expectError(yield* api.request(method, path, { token: stranger.token, body }), 403, "APPLICATION_NOT_OWNED")
      }
      expect((yield* api.request("GET", `/oauth2/applications/${app.id}`, { token: owner.token })).body).toMatchObject({ name: "Renamed" })
      expectError(yield* api.request("GET", "/oauth2/applications/1234567890", { token: owner.token }), 404, "UNKNOWN_APPLICATION")
      expectError(yield* api.request("GET", "/oauth2/applications/1234567890/public"), 404, "UNKNOWN_APPLICATION")
      expectError(yield* api.request("GET", `/oauth2/applications/${app.id}`), 401, "UNAUTHORIZED")
      // Applications are people's business: a bot manages none.
      expectError(yield* api.request("POST", "/oauth2/applications", { token: app.botToken, body: { name: "Child" } }), 403, "ACCESS_DENIED")
    }))

  it.effect("resolves raw tokens as the gateway's IDENTIFY sends them: sessions, and bot tokens with or without `Bot `", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* api.register()
      const app = yield* createApplication(user.token)
      const resolved = yield* Effect.forEach(
        [user.token, app.botToken, app.botToken.slice(4), "nonsense", `Bot ${user.token}`],
        (token) => Effect.map(resolveToken(token), (found) => found === undefined ? undefined : { id: found.id, applicationId: found.applicationId })
      ).pipe(Effect.provide(tokenServices(api.databaseUrl)))
      assert.deepStrictEqual(resolved, [
        { id: user.userId, applicationId: undefined },
        { id: app.id, applicationId: app.id },
        { id: app.id, applicationId: app.id },
        undefined,
        undefined
      ])
    }))

  it.effect("refuses bad input with 400", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const owner = yield* api.register()
      for (const body of [{}, { name: "" }, { name: "x".repeat(101) }, { name: "ok", redirect_uris: ["not a url"] }, { name: "ok", bot_public: "yes" }]) {
        expectError(yield* api.request("POST", "/oauth2/applications", { token: owner.token, body }), 400, "INVALID_FORM_BODY")
      }
      const app = yield* createApplication(owner.token)
      const bot = `/oauth2/applications/${app.id}/bot`
      for (const body of [{ username: "has space" }, { discriminator: "12345" }, { avatar: "bm90IGFuIGltYWdl" }, { bot_flags: -1 }]) {
        expectError(yield* api.request("PATCH", bot, { token: owner.token, body }), 400, "INVALID_FORM_BODY")
      }
      expectError(yield* api.request("PATCH", bot, { token: owner.token, body: { bot_flags: 1 } }), 400, "INVALID_BOT_FLAG")
      expectError(yield* api.request("GET", "/oauth2/applications/abc", { token: owner.token }), 400, "INVALID_FORM_BODY")
    }))
})
