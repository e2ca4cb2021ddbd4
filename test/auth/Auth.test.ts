import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { createHash } from "node:crypto"
import { registrationProblems } from "../../src/auth/Http.ts"
import { LoginCompletion } from "../../src/auth/LoginCompletion.ts"
import { OneTimeTokens } from "../../src/auth/OneTimeTokens.ts"
import { isTooCommon } from "../../src/auth/PasswordPolicy.ts"
import { SessionCache } from "../../src/auth/SessionCache.ts"
import { Sessions } from "../../src/auth/Sessions.ts"
import { UserEvents } from "../../shards/UserEvents.ts"
import { SignIn } from "../../src/auth/SignIn.ts"
import { candidates, SUGGESTION, usernameBase } from "../../src/auth/UsernameSuggestions.ts"
import { MfaProofs } from "../../src/mfa/Proofs.ts"
import { UsersRepo } from "../../src/users/Repo.ts"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { stringsIn } from "./json.ts"

describe("registration rules", () => {
  const today = new Date("2026-06-15T12:00:00Z")
  const valid = { email: "a@b.co", password: "long enough", date_of_birth: "2000-01-01", consent: true }
  const codes = (body: Parameters<typeof registrationProblems>[0]) => registrationProblems(body, today).map((p) => p.code)

  it("accepts a valid registration", () => {
    assert.deepStrictEqual(codes(valid), [])
  })
  it("needs consent, a real date of birth and the minimum age", () => {
    assert.deepStrictEqual(codes({ ...valid, consent: false }), ["MUST_AGREE_TO_TOS_AND_PRIVACY_POLICY"])
    assert.deepStrictEqual(codes({ ...valid, date_of_birth: "2000-02-30" }), ["INVALID_DATE_OF_BIRTH_FORMAT"])
    assert.deepStrictEqual(codes({ ...valid, date_of_birth: "01/01/2000" }), ["INVALID_DATE_OF_BIRTH_FORMAT"])
    assert.deepStrictEqual(codes({ ...valid, date_of_birth: "2013-06-16" }), ["MUST_BE_MINIMUM_AGE"])
    assert.deepStrictEqual(codes({ ...valid, date_of_birth: "2013-06-15" }), [])
  })
  it("bounds the password length in code points", () => {
    assert.deepStrictEqual(codes({ ...valid, password: "short" }), ["PASSWORD_LENGTH_INVALID"])
    assert.deepStrictEqual(codes({ ...valid, password: "x".repeat(257) }), ["PASSWORD_LENGTH_INVALID"])
    assert.deepStrictEqual(codes({ ...valid, password: undefined }), ["PASSWORD_LENGTH_INVALID"])
  })
  it("refuses the common passwords, whatever their case", () => {
    assert.deepStrictEqual(codes({ ...valid, password: "PassWord123" }), ["PASSWORD_IS_TOO_COMMON"])
    assert.deepStrictEqual(codes({ ...valid, password: "iloveyou2" }), ["PASSWORD_IS_TOO_COMMON"])
    assert.isTrue(isTooCommon("QWERTYUIOP"))
    assert.isFalse(isTooCommon("correct horse battery"))
  })
})

describe("username suggestions", () => {
  it("derive valid usernames from a display name", () => {
    assert.strictEqual(usernameBase("Zoë Ångström-Smith"), "zoe_angstrom_smith")
    assert.strictEqual(usernameBase("  Dr. Who?! "), "dr_who")
    assert.strictEqual(usernameBase("🙂"), "user")
    assert.strictEqual(usernameBase("x".repeat(50)), "x".repeat(32))
    const list = candidates("Mary Jane")
    assert.strictEqual(list[0], "mary_jane")
    assert.strictEqual(list[1], "maryjane")
    for (const name of [...list, ...candidates("y".repeat(40))]) assert.match(name, SUGGESTION)
  })
})

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("auth over HTTP", (it) => {
  it.effect("registers, reads @me, logs out and in again", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId, email } = yield* api.register({ username: "alice", global_name: "Alice" })
      const me = yield* api.request("GET", "/users/@me", { token })
      assert.strictEqual(me.status, 200)
      expect(me.body).toMatchObject({ id: userId, username: "alice", global_name: "Alice", email, verified: false })
      assert.match(field(me.body, "discriminator"), /^\d{4}$/)

      const logout = yield* api.request("POST", "/auth/logout", { token })
      assert.strictEqual(logout.status, 204)
      const after = yield* api.request("GET", "/users/@me", { token })
      assert.strictEqual(after.status, 401)

      const login = yield* api.request("POST", "/auth/login", { body: { email: email.toUpperCase(), password: "correct horse battery" } })
      assert.strictEqual(login.status, 200)
      assert.strictEqual(field(login.body, "user_id"), userId)
      assert.notStrictEqual(field(login.body, "token"), token)
      const again = yield* api.request("GET", "/users/@me", { token: field(login.body, "token") })
      assert.strictEqual(again.status, 200)
    }))

  it.effect("answers a wrong password and an unknown email alike", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { email } = yield* api.register()
      const wrong = yield* api.request("POST", "/auth/login", { body: { email, password: "not the password" } })
      const unknown = yield* api.request("POST", "/auth/login", { body: { email: "nobody@example.com", password: "not the password" } })
      assert.strictEqual(wrong.status, 400)
      assert.deepStrictEqual(wrong.body, unknown.body)
      expect(wrong.body).toMatchObject({
        code: "INVALID_FORM_BODY",
        errors: [{ path: "email", code: "INVALID_EMAIL_OR_PASSWORD" }, { path: "password", code: "INVALID_EMAIL_OR_PASSWORD" }]
      })
    }))

  it.effect("refuses a taken email and each broken rule with its code", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { email } = yield* api.register()
      const taken = yield* api.request("POST", "/auth/register", {
        body: { email: email.toUpperCase(), password: "correct horse battery", date_of_birth: "2000-01-01", consent: true }
      })
      assert.strictEqual(taken.status, 400)
      expect(taken.body).toMatchObject({ errors: [{ path: "email", code: "EMAIL_ALREADY_IN_USE" }] })

      const broken = yield* api.request("POST", "/auth/register", {
        body: { email: "new@example.com", password: "short", date_of_birth: "2020-01-01", consent: false }
      })
      assert.strictEqual(broken.status, 400)
      expect(broken.body).toMatchObject({
        code: "INVALID_FORM_BODY",
        errors: [
          { path: "consent", code: "MUST_AGREE_TO_TOS_AND_PRIVACY_POLICY" },
          { path: "date_of_birth", code: "MUST_BE_MINIMUM_AGE" },
          { path: "password", code: "PASSWORD_LENGTH_INVALID" }
        ]
      })

      const badEmail = yield* api.request("POST", "/auth/register", { body: { email: "not-an-email", consent: true } })
      assert.strictEqual(badEmail.status, 400)
      expect(badEmail.body).toMatchObject({ errors: [{ path: "email", code: "INVALID_EMAIL_FORMAT" }] })
    }))

  it.effect("stores only the SHA-256 of tokens and an argon2id hash of passwords", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId } = yield* api.register()
      assert.isAtLeast(Buffer.from(token, "base64url").length, 32)
      const sessions = yield* queryAt(api.databaseUrl, "SELECT encode(token_hash, 'hex') AS h FROM sessions WHERE user_id = $1", [userId])
      assert.deepStrictEqual(sessions.map((r) => r.h), [createHash("sha256").update(token).digest("hex")])
      const users = yield* queryAt(api.databaseUrl, "SELECT password_hash FROM users WHERE id = $1", [userId])
      assert.match(String(users[0]?.password_hash), /^\$argon2id\$/)
    }))

  it.effect("refuses a common password at registration", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const reply = yield* api.request("POST", "/auth/register", {
        body: { email: "common@example.com", password: "Password123", date_of_birth: "2000-01-01", consent: true }
      })
      assert.strictEqual(reply.status, 400)
      expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "password", code: "PASSWORD_IS_TOO_COMMON" }] })
      const dob = yield* api.request("POST", "/auth/register", {
        body: { email: "dob@example.com", password: "correct horse battery", date_of_birth: "2000-13-01", consent: true }
      })
      expect(dob.body).toMatchObject({ errors: [{ path: "date_of_birth", code: "INVALID_DATE_OF_BIRTH_FORMAT" }] })
    }))

  it.effect("a login re-enables a disabled account and cancels a scheduled deletion", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { userId, email } = yield* api.register()
      yield* queryAt(api.databaseUrl, "UPDATE users SET disabled_at = now(), deletion_scheduled_at = now() + interval '14 days' WHERE id = $1", [userId])
      const wrong = yield* api.request("POST", "/auth/login", { body: { email, password: "not the password" } })
      assert.strictEqual(wrong.status, 400)
      const still = yield* queryAt(api.databaseUrl, "SELECT disabled_at FROM users WHERE id = $1", [userId])
      assert.isNotNull(still[0]?.disabled_at)
      const login = yield* api.request("POST", "/auth/login", { body: { email, password: "correct horse battery" } })
      assert.strictEqual(login.status, 200)
      const after = yield* queryAt(api.databaseUrl, "SELECT disabled_at, deletion_scheduled_at FROM users WHERE id = $1", [userId])
      assert.deepStrictEqual(after[0], { disabled_at: null, deletion_scheduled_at: null })
    }))

  it.effect("suggests free usernames for a display name", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      yield* api.register({ username: "ada_lovelace" })
      const reply = yield* api.request("POST", "/auth/username-suggestions", { body: { global_name: "Ada Lovelace" } })
      assert.strictEqual(reply.status, 200)
      const suggestions = stringsIn(reply.body, "suggestions")
      assert.isAtLeast(suggestions.length, 3)
      assert.isAtMost(suggestions.length, 20)
      assert.notInclude(suggestions, "ada_lovelace")
      assert.strictEqual(suggestions[0], "adalovelace")
      for (const name of suggestions) assert.match(name, /^[a-z0-9_]{2,32}$/)
      // A suggestion is taken as is at registration.
      const { token } = yield* api.register({ username: suggestions[0] })
      expect((yield* api.request("GET", "/users/@me", { token })).body).toMatchObject({ username: "adalovelace" })

      for (const body of [{}, { global_name: "" }, { global_name: "x".repeat(33) }, { global_name: 7 }]) {
        const bad = yield* api.request("POST", "/auth/username-suggestions", { body })
        assert.strictEqual(bad.status, 400, JSON.stringify(body))
        expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "global_name" }] })
      }
    }))

  it.effect("logout needs a session; login input is validated", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      assert.strictEqual((yield* api.request("POST", "/auth/logout")).status, 401)
      expect((yield* api.request("POST", "/auth/logout", { token: "nope" })).body).toMatchObject({ code: "UNAUTHORIZED" })
      const missing = yield* api.request("POST", "/auth/login", { body: { email: "a@b.co" } })
      assert.strictEqual(missing.status, 400)
      expect(missing.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "password" }] })
      const huge = yield* api.request("POST", "/auth/login", { body: { email: "a@b.co", password: "x".repeat(2000) } })
      assert.strictEqual(huge.status, 400)
    }))

  it.effect("with MFA on, the login answer is a 5-minute MFA ticket instead of a session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { userId } = yield* api.register()
      const totpOnly = Layer.succeed(MfaProofs, MfaProofs.of({
        methods: () => Effect.succeed({ totp: true, sms: false, webauthn: false, phoneHint: null }),
        hasMfa: () => Effect.succeed(true),
        verify: () => Effect.succeed(false)
      }))
      const database = PgClient.layer({ url: Redacted.make(api.databaseUrl) })
      const { answer, ticketData, lifetime } = yield* Effect.gen(function*() {
        const signIn = yield* SignIn
        const tokens = yield* OneTimeTokens
        const answer = yield* signIn.mfaChallenge(userId)
        const ticket = answer?.ticket ?? ""
        const ticketData = yield* tokens.peek("mfa_ticket", ticket)
        const lifetime = yield* queryAt(
          api.databaseUrl,
          "SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM one_time_tokens WHERE kind = 'mfa_ticket' AND user_id = $1",
          [userId]
        )
        return { answer, ticketData, lifetime }
      }).pipe(
        Effect.provide(SignIn.layer.pipe(
          Layer.provideMerge(Layer.mergeAll(totpOnly, OneTimeTokens.layer, LoginCompletion.layer.pipe(Layer.provide([Sessions.layer, UsersRepo.layer]), Layer.provide([UserEvents.layerLocal, SessionCache.layerLocal])))),
          Layer.provide(database)
        ))
      )
      expect(answer).toMatchObject({
        mfa: true,
        allowed_methods: ["totp", "backup"],
        totp: true,
        sms: false,
        webauthn: false,
        sms_phone_hint: null
      })
      assert.strictEqual(ticketData?.userId, userId)
      assert.strictEqual(lifetime[0]?.s, 300)
    }))
})
