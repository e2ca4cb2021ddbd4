import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { registrationProblems } from "../../src/auth/Http.ts"
import { createHash } from "node:crypto"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"

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
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("auth over HTTP", (it) => {
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
})
