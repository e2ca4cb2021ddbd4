import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

const PASSWORD = "correct horse battery"
const DAY_MS = 86_400_000
const admin = (key: string) => `Admin ${key}`

// The deletion job runs every second here, so a test sees it act within a few seconds.
layer(TestApi.layerWith({ ACCOUNT_DELETION_SWEEP_SECONDS: "1" }), { timeout: 120_000, excludeTestServices: true })(
  "account disable and deletion over HTTP",
  (it) => {
    const post = (path: string, token: string | undefined, body?: unknown) =>
      Effect.flatMap(TestApi, (api) => api.request("POST", path, { token, body }))
    const me = (token: string) => Effect.flatMap(TestApi, (api) => api.request("GET", "/users/@me", { token }))
    const login = (email: string) => post("/auth/login", undefined, { email, password: PASSWORD })
    const userRow = (userId: string) =>
      Effect.flatMap(TestApi, (api) =>
        queryAt(api.databaseUrl, "SELECT disabled_at, deletion_scheduled_at FROM users WHERE id = $1", [userId]))

    /** Polls `check` until it holds, for up to 15 seconds (the job runs every second). */
    const eventually = (check: Effect.Effect<boolean>) =>
      Effect.gen(function*() {
        for (let i = 0; i < 75; i++) {
          if (yield* check) return true
          yield* Effect.sleep("200 millis")
        }
        return false
      })

    it.effect("disable needs sudo mode, ends every session, and a login re-enables the account", () =>
      Effect.gen(function*() {
        const { token, userId, email } = yield* Effect.flatMap(TestApi, (api) => api.register())
        const other = field((yield* login(email)).body, "token")

        const noProof = yield* post("/users/@me/disable", token, {})
        assert.strictEqual(noProof.status, 403)
        expect(noProof.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
        const noBody = yield* post("/users/@me/disable", token)
        expectError(noBody, 403, "SUDO_MODE_REQUIRED")
        const wrong = yield* post("/users/@me/disable", token, { password: "not the password" })
        assert.strictEqual(wrong.status, 400)
        expect(wrong.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "password", code: "INVALID_PASSWORD" }] })
        assert.isNull((yield* userRow(userId))[0]?.disabled_at)
        assert.strictEqual((yield* me(other)).status, 200)

        const disabled = yield* post("/users/@me/disable", token, { password: PASSWORD })
        assert.strictEqual(disabled.status, 204, JSON.stringify(disabled.body))
        assert.isNotNull((yield* userRow(userId))[0]?.disabled_at)
        for (const ended of [token, other]) {
          const reply = yield* me(ended)
          expectError(reply, 401, "UNAUTHORIZED")
        }

        const again = yield* login(email)
        assert.strictEqual(again.status, 200, JSON.stringify(again.body))
        assert.isNull((yield* userRow(userId))[0]?.disabled_at)
        const fresh = yield* me(field(again.body, "token"))
        assert.strictEqual(fresh.status, 200)
        expect(fresh.body).toMatchObject({ id: userId })
      }))

    it.effect("delete schedules the deletion after 14 days, ends every session, and a login cancels it", () =>
      Effect.gen(function*() {
        const { token, userId, email } = yield* Effect.flatMap(TestApi, (api) => api.register())
        const noProof = yield* post("/users/@me/delete", token, {})
        assert.strictEqual(noProof.status, 403)
        expect(noProof.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
        assert.isNull((yield* userRow(userId))[0]?.deletion_scheduled_at)

        const before = Date.now()
        const deleted = yield* post("/users/@me/delete", token, { password: PASSWORD })
        assert.strictEqual(deleted.status, 204, JSON.stringify(deleted.body))
        const due = Date.parse(String((yield* userRow(userId))[0]?.deletion_scheduled_at))
        assert.isAtLeast(due, before + 14 * DAY_MS - 60_000)
        assert.isAtMost(due, Date.now() + 14 * DAY_MS + 60_000)
        assert.strictEqual((yield* me(token)).status, 401)

        const back = yield* login(email)
        assert.strictEqual(back.status, 200, JSON.stringify(back.body))
        assert.isNull((yield* userRow(userId))[0]?.deletion_scheduled_at)
        assert.strictEqual((yield* me(field(back.body, "token"))).status, 200)
      }))

    it.effect("refuses to delete the owner of a guild", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const owner = yield* api.register()
        const guild = yield* api.request("POST", "/guilds", { token: owner.token, body: { name: "Mine" } })
        assert.strictEqual(guild.status, 200, JSON.stringify(guild.body))
        const refused = yield* post("/users/@me/delete", owner.token, { password: PASSWORD })
        expectError(refused, 400, "USER_OWNS_GUILDS")
        assert.isNull((yield* userRow(owner.userId))[0]?.deletion_scheduled_at)
        assert.strictEqual((yield* me(owner.token)).status, 200)
      }))

    it.effect("refuses bad input and unauthenticated calls", () =>
      Effect.gen(function*() {
        const { token, userId } = yield* Effect.flatMap(TestApi, (api) => api.register())
        for (const path of ["/users/@me/disable", "/users/@me/delete"]) {
          for (const body of [{ password: 123 }, { password: "x".repeat(2000) }, { mfa_method: "pigeon", mfa_code: "123456" }, ["a"]]) {
            const reply = yield* post(path, token, body)
            assert.strictEqual(reply.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`)
            expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
          }
          for (const bad of [undefined, "not-a-session", "Bot 1.x"]) {
            const reply = yield* post(path, bad, { password: PASSWORD })
            expectError(reply, 401, "UNAUTHORIZED")
          }
        }
        assert.deepStrictEqual((yield* userRow(userId))[0], { disabled_at: null, deletion_scheduled_at: null })
        assert.strictEqual((yield* me(token)).status, 200)
      }))

    it.effect("the job deletes an account once its grace period is over, and no other", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const owner = yield* api.register()
        const leaving = yield* api.register()
        const waiting = yield* api.register()
        const guild = yield* api.request("POST", "/guilds", { token: owner.token, body: { name: "Hall" } })
        const guildId = field(guild.body, "id")
        // A member who joined behind the actor's back; the reload makes the actor see it.
        yield* queryAt(api.databaseUrl, "INSERT INTO guild_members (guild_id, user_id) VALUES ($1, $2)", [guildId, leaving.userId])
        yield* api.request("POST", "/admin/guilds/reload", { token: admin(api.adminKey), body: { guild_id: guildId } })
        const memberIds = Effect.map(
          api.request("GET", `/guilds/${guildId}/members?limit=100`, { token: owner.token }),
          (reply) => (reply.body as ReadonlyArray<{ user: { id: string } }>).map((m) => m.user.id)
        )
        assert.sameMembers(yield* memberIds, [owner.userId, leaving.userId])

        // The leaving user's actor holds the account in memory when the job deletes it.
        assert.strictEqual((yield* me(leaving.token)).status, 200)
        for (const user of [leaving, waiting]) {
          const reply = yield* post("/users/@me/delete", user.token, { password: PASSWORD })
          assert.strictEqual(reply.status, 204, JSON.stringify(reply.body))
        }
        // The owner is due too (an operator's schedule), but a guild cannot lose its owner.
        yield* queryAt(api.databaseUrl, "UPDATE users SET deletion_scheduled_at = now() - interval '1 minute' WHERE id = ANY($1::bigint[])", [
          [leaving.userId, owner.userId]
        ])

        const gone = yield* eventually(Effect.map(
          queryAt(api.databaseUrl, "SELECT id FROM users WHERE id = $1", [leaving.userId]),
          (rows) => rows.length === 0
        ))
        assert.isTrue(gone, "the due account was not deleted")
        const left = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM guild_members WHERE user_id = $1", [leaving.userId])
        assert.strictEqual(left[0]?.n, 0)
        assert.isTrue(yield* eventually(Effect.map(memberIds, (ids) => ids.length === 1 && ids[0] === owner.userId)))
        // The actor let the account go: a write to it finds no user (a held copy would have taken it).
        const acls = yield* post("/admin/users/set-acls", admin(api.adminKey), { user_id: leaving.userId, acls: [] })
        expectError(acls, 404, "UNKNOWN_USER")

        // Its email address is free again and its password opens nothing.
        const oldLogin = yield* login(leaving.email)
        assert.strictEqual(oldLogin.status, 400)
        const reused = yield* api.register({ email: leaving.email })
        assert.notStrictEqual(reused.userId, leaving.userId)

        assert.isNotNull((yield* userRow(waiting.userId))[0]?.deletion_scheduled_at)
        assert.isNotNull((yield* userRow(owner.userId))[0]?.deletion_scheduled_at)
        assert.strictEqual((yield* me(owner.token)).status, 200)
      }))
  }
)
