import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { offsetMinutes } from "../../src/users/Profiles.ts"
import { expectError, TestApi } from "../support/Api.ts"
import { createGuild } from "../support/Cast.ts"
import { queryAt } from "../support/Postgres.ts"

describe("time zone offsets", () => {
  it("are minutes east of UTC at the given moment", () => {
    assert.strictEqual(offsetMinutes("Asia/Kolkata", new Date()), 330)
    assert.strictEqual(offsetMinutes("UTC", new Date()), 0)
    assert.strictEqual(offsetMinutes("America/New_York", new Date("2024-01-15T12:00:00Z")), -300)
    assert.strictEqual(offsetMinutes("America/New_York", new Date("2024-07-15T12:00:00Z")), -240)
  })
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("user profiles over HTTP", (it) => {
  const profile = (token: string, targetId: string, query = "") =>
    Effect.flatMap(TestApi, (api) => api.request("GET", `/users/${targetId}/profile${query}`, { token }))
  const befriend = (a: string, b: string) =>
    Effect.flatMap(TestApi, (api) =>
      queryAt(api.databaseUrl, "INSERT INTO relationships (user_id, target_id, type) VALUES ($1, $2, 1), ($2, $1, 1)", [a, b]))
  const joinGuild = (guildId: string, userId: string, nick: string | null) =>
    Effect.flatMap(TestApi, (api) =>
      queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id, nick) VALUES ($1, $2, $3)", [guildId, userId, nick]))

  it.effect("one's own profile; unknown users, bad ids and anonymous callers are refused", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      yield* api.request("PATCH", "/users/@me", { token, body: { bio: "hello", pronouns: "they/them", accent_color: 5 } })
      const own = yield* profile(token, userId, "?with_mutual_guilds=true&with_mutual_friends=true")
      assert.strictEqual(own.status, 200, JSON.stringify(own.body))
      expect(own.body).toMatchObject({
        user: { id: userId },
        user_profile: { bio: "hello", pronouns: "they/them", banner: null, accent_color: 5 },
        connected_accounts: [],
        timezone_offset: null,
        profile_limited: false
      })
      assert.notProperty(own.body, "mutual_guilds")
      assert.notProperty(own.body, "guild_member")

      const unknown = yield* profile(token, "1")
      expectError(unknown, 404, "UNKNOWN_USER")
      assert.strictEqual((yield* profile(token, "me")).status, 400)
      assert.strictEqual((yield* profile(token, userId, "?with_mutual_guilds=maybe")).status, 400)
      assert.strictEqual((yield* api.request("GET", `/users/${userId}/profile`)).status, 401)
    }))

  it.effect("another user's profile needs a shared guild or a relationship, and shows what they share", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register()
      const b = yield* api.register()
      const c = yield* api.register()
      const refused = yield* profile(b.token, a.userId)
      expectError(refused, 403, "MISSING_ACCESS")

      const { guildId } = yield* createGuild(a.token)
      yield* joinGuild(guildId, b.userId, "Bee")
      const seen = yield* profile(b.token, a.userId, "?with_mutual_guilds=true")
      assert.strictEqual(seen.status, 200, JSON.stringify(seen.body))
      expect(seen.body).toMatchObject({ user: { id: a.userId }, mutual_guilds: [{ id: guildId, nick: null }], profile_limited: false })
      expect((yield* profile(a.token, b.userId, "?with_mutual_guilds=1")).body).toMatchObject({ mutual_guilds: [{ id: guildId, nick: "Bee" }] })
      assert.notProperty((yield* profile(a.token, b.userId)).body, "mutual_guilds")

      yield* befriend(a.userId, c.userId)
      yield* befriend(b.userId, c.userId)
      const friendsView = yield* profile(a.token, b.userId, "?with_mutual_friends=true")
      expect(friendsView.body).toMatchObject({ mutual_friends: [{ id: c.userId }] })
      // A friend outside every shared guild may see the profile too.
      assert.strictEqual((yield* profile(c.token, a.userId)).status, 200)

      // A bot's profile is open to everyone.
      const bot = yield* api.register()
      yield* queryAt(api.databaseUrl, "UPDATE users SET bot = true WHERE id = $1", [bot.userId])
      assert.strictEqual((yield* profile(c.token, bot.userId)).status, 200)
    }))

  it.effect("with guild_id the target's membership there comes along", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register()
      const b = yield* api.register()
      const { guildId } = yield* createGuild(a.token)
      yield* joinGuild(guildId, b.userId, "Bee")
      // The guild's actor reads its members when it loads: make it read them again.
      const reload = yield* api.request("POST", "/admin/guilds/reload", {
        body: { guild_id: guildId },
        headers: { authorization: `Admin ${api.adminKey}` }
      })
      assert.strictEqual(reload.status, 200, JSON.stringify(reload.body))

      const withMember = yield* profile(a.token, b.userId, `?guild_id=${guildId}`)
      assert.strictEqual(withMember.status, 200, JSON.stringify(withMember.body))
      expect(withMember.body).toMatchObject({
        guild_member: { user: { id: b.userId }, nick: "Bee" },
        guild_member_profile: { bio: null, pronouns: null }
      })
      const { guildId: otherGuild } = yield* createGuild(b.token)
      const outside = yield* profile(a.token, b.userId, `?guild_id=${otherGuild}`)
      assert.strictEqual(outside.status, 200)
      expect(outside.body).toMatchObject({ guild_member_profile: null })
      assert.notProperty(outside.body, "guild_member")
    }))

  it.effect("profile privacy and the time zone's privacy flags limit what others see", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register()
      const b = yield* api.register()
      yield* joinGuild((yield* createGuild(a.token)).guildId, b.userId, null)
      yield* api.request("PATCH", "/users/@me", {
        token: a.token,
        body: { bio: "private things", timezone: "Asia/Kolkata", timezone_privacy_flags: 1 }
      })
      expect((yield* profile(b.token, a.userId)).body).toMatchObject({ user_profile: { bio: "private things" }, timezone_offset: 330 })

      yield* api.request("PATCH", "/users/@me", { token: a.token, body: { timezone_privacy_flags: 2 } })
      expect((yield* profile(b.token, a.userId)).body).toMatchObject({ timezone_offset: null })
      expect((yield* profile(a.token, a.userId)).body).toMatchObject({ timezone_offset: 330 })

      const friendsOnly = yield* api.request("PATCH", "/users/@me/settings", { token: a.token, body: { profile_privacy: 2 } })
      assert.strictEqual(friendsOnly.status, 200)
      expect((yield* profile(b.token, a.userId)).body).toMatchObject({
        user_profile: { bio: null, pronouns: null },
        timezone_offset: null,
        profile_limited: true
      })
      yield* befriend(a.userId, b.userId)
      expect((yield* profile(b.token, a.userId)).body).toMatchObject({
        user_profile: { bio: "private things" },
        timezone_offset: 330,
        profile_limited: false
      })
    }))
})
