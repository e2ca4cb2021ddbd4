import * as PgClient from "@effect/sql-pg/PgClient"
import { assert, expect, layer } from "@effect/vitest"
import { Effect, Layer, Redacted } from "effect"
import { EmailRevert } from "../../src/auth/EmailTokens.ts"
import { OneTimeTokens } from "../../src/auth/OneTimeTokens.ts"
import { AppConfig } from "../../src/platform/Config.ts"
import { Mailer } from "../../src/mail/Mailer.ts"
import { field, TestApi } from "../support/Api.ts"
import { TestMail, tokenIn } from "../support/Mail.ts"
import { queryAt } from "../support/Postgres.ts"

const PASSWORD = "correct horse battery"
const NEW_PASSWORD = "a brand new secret phrase"

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("emailed-token flows", (it) => {
  it.effect("verifies the email with the token sent at registration; resend refuses a verified account", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token, email } = yield* api.register()
      const welcome = yield* mail.next(email, /Verify/)
      assert.include(welcome.text, "http://localhost:8080/verify#token=")

      // A resend ends the first link and sends a new one.
      const resend = yield* api.request("POST", "/auth/verify/resend", { token })
      assert.strictEqual(resend.status, 204)
      const second = yield* mail.next(email, /Verify/)
      const stale = yield* api.request("POST", "/auth/verify", { body: { token: tokenIn(welcome) } })
      assert.strictEqual(stale.status, 400)
      expect(stale.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_VERIFICATION_TOKEN" }] })

      const verified = yield* api.request("POST", "/auth/verify", { body: { token: tokenIn(second) } })
      assert.strictEqual(verified.status, 204)
      expect((yield* api.request("GET", "/users/@me", { token })).body).toMatchObject({ verified: true })
      const reused = yield* api.request("POST", "/auth/verify", { body: { token: tokenIn(second) } })
      assert.strictEqual(reused.status, 400)

      const already = yield* api.request("POST", "/auth/verify/resend", { token })
      assert.strictEqual(already.status, 400)
      expect(already.body).toMatchObject({ errors: [{ code: "ACCOUNT_ALREADY_VERIFIED" }] })
      assert.strictEqual((yield* api.request("POST", "/auth/verify/resend")).status, 401)
      assert.strictEqual((yield* api.request("POST", "/auth/verify/resend", { token: "nope" })).status, 401)
      const noToken = yield* api.request("POST", "/auth/verify", { body: {} })
      assert.strictEqual(noToken.status, 400)
      expect(noToken.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "token" }] })
    }))

  it.effect("a verify token does not verify an address the account no longer has", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token, userId, email } = yield* api.register()
      const link = tokenIn(yield* mail.next(email, /Verify/))
      yield* queryAt(api.databaseUrl, "UPDATE users SET email = $2 WHERE id = $1", [userId, `moved-${email}`])
      const reply = yield* api.request("POST", "/auth/verify", { body: { token: link } })
      assert.strictEqual(reply.status, 400)
      expect((yield* api.request("GET", "/users/@me", { token })).body).toMatchObject({ verified: false })
    }))

  it.effect("forgot answers alike for unknown addresses; reset sets the password and ends every session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token: oldSession, userId, email } = yield* api.register()
      const other = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
      const otherSession = field(other.body, "token")

      const unknown = yield* api.request("POST", "/auth/forgot", { body: { email: "nobody-here@example.com" } })
      const known = yield* api.request("POST", "/auth/forgot", { body: { email: email.toUpperCase() } })
      assert.strictEqual(unknown.status, 204)
      assert.strictEqual(known.status, 204)
      assert.deepStrictEqual(unknown.body, known.body)
      const resetMail = yield* mail.next(email, /Reset/)
      const token = tokenIn(resetMail)
      assert.include(resetMail.text, `/reset#token=${token}`)
      assert.deepStrictEqual((yield* api.request("GET", `/auth/reset/${token}`)).body, { valid: true })
      assert.deepStrictEqual((yield* api.request("GET", "/auth/reset/not-a-token")).body, { valid: false })

      // Bad passwords are refused before the token is used up.
      const common = yield* api.request("POST", "/auth/reset", { body: { token, password: "Password123" } })
      assert.strictEqual(common.status, 400)
      expect(common.body).toMatchObject({ errors: [{ path: "password", code: "PASSWORD_IS_TOO_COMMON" }] })
      const short = yield* api.request("POST", "/auth/reset", { body: { token, password: "short" } })
      expect(short.body).toMatchObject({ errors: [{ path: "password", code: "PASSWORD_LENGTH_INVALID" }] })
      const badToken = yield* api.request("POST", "/auth/reset", { body: { token: "nope", password: NEW_PASSWORD } })
      assert.strictEqual(badToken.status, 400)
      expect(badToken.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_RESET_TOKEN" }] })

      const before = yield* api.request("GET", "/users/@me", { token: oldSession })
      expect(before.body).toMatchObject({ verified: false, password_last_changed_at: null })
      const reset = yield* api.request("POST", "/auth/reset", { body: { token, password: NEW_PASSWORD } })
      assert.strictEqual(reset.status, 200)
      assert.strictEqual(field(reset.body, "user_id"), userId)
      const newSession = field(reset.body, "token")
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: oldSession })).status, 401)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: otherSession })).status, 401)
      const me = yield* api.request("GET", "/users/@me", { token: newSession })
      assert.strictEqual(me.status, 200)
      // The reset link went to the account's address: it is verified now, and the password is new.
      expect(me.body).toMatchObject({ verified: true, password_last_changed_at: expect.any(String) })

      const oldPassword = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(oldPassword.status, 400)
      const newPassword = yield* api.request("POST", "/auth/login", { body: { email, password: NEW_PASSWORD } })
      assert.strictEqual(newPassword.status, 200)
      const again = yield* api.request("POST", "/auth/reset", { body: { token, password: "yet another long one" } })
      assert.strictEqual(again.status, 400)
      expect(again.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_RESET_TOKEN" }] })
      assert.deepStrictEqual((yield* api.request("GET", `/auth/reset/${token}`)).body, { valid: false })

      const badEmail = yield* api.request("POST", "/auth/forgot", { body: { email: "not-an-email" } })
      assert.strictEqual(badEmail.status, 400)
      expect(badEmail.body).toMatchObject({ errors: [{ path: "email", code: "INVALID_EMAIL_FORMAT" }] })
      const noMail = (yield* mail.all).filter((m) => m.to.includes("nobody-here@example.com"))
      assert.strictEqual(noMail.length, 0)
    }))

  it.effect("email revert puts the old address back, sets the password and ends every session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token: session, userId, email: oldEmail } = yield* api.register()
      const newEmail = `changed-${oldEmail}`
      // What the account slice does when an email change completes.
      yield* queryAt(api.databaseUrl, "UPDATE users SET email = $2, email_verified = true WHERE id = $1", [userId, newEmail])
      yield* EmailRevert.issue(userId, oldEmail).pipe(
        Effect.provide(Layer.mergeAll(
          OneTimeTokens.layer.pipe(Layer.provide(PgClient.layer({ url: Redacted.make(api.databaseUrl) }))),
          Mailer.layerSmtp(mail.url, "test@guildhall.test"),
          AppConfig.layerWith({ publicUrl: "http://guildhall.test" })
        ))
      )
      const revertMail = yield* mail.next(oldEmail, /email address of your account was changed/)
      const token = tokenIn(revertMail)
      assert.include(revertMail.text, `http://guildhall.test/email-revert#token=${token}`)

      const common = yield* api.request("POST", "/auth/email-revert", { body: { token, password: "qwertyuiop" } })
      assert.strictEqual(common.status, 400)
      expect(common.body).toMatchObject({ errors: [{ path: "password", code: "PASSWORD_IS_TOO_COMMON" }] })
      const wrong = yield* api.request("POST", "/auth/email-revert", { body: { token: "nope", password: NEW_PASSWORD } })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_REVERT_TOKEN" }] })

      const reverted = yield* api.request("POST", "/auth/email-revert", { body: { token, password: NEW_PASSWORD } })
      assert.strictEqual(reverted.status, 200)
      assert.strictEqual(field(reverted.body, "user_id"), userId)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: session })).status, 401)
      const me = yield* api.request("GET", "/users/@me", { token: field(reverted.body, "token") })
      expect(me.body).toMatchObject({ email: oldEmail, verified: true })
      assert.strictEqual((yield* api.request("POST", "/auth/login", { body: { email: newEmail, password: PASSWORD } })).status, 400)
      assert.strictEqual((yield* api.request("POST", "/auth/login", { body: { email: oldEmail, password: NEW_PASSWORD } })).status, 200)
      const twice = yield* api.request("POST", "/auth/email-revert", { body: { token, password: NEW_PASSWORD } })
      assert.strictEqual(twice.status, 400)
      expect(twice.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_REVERT_TOKEN" }] })
      const missing = yield* api.request("POST", "/auth/email-revert", { body: { token } })
      assert.strictEqual(missing.status, 400)
      expect(missing.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "password" }] })
    }))
})
