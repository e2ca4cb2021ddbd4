import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { newPhone, textedCode } from "../support/SmsProvider.ts"
import { mfaTicket, PASSWORD, SUDO_HEADER, sudoTokenOf, totpAt, type TotpUser, userWithTotp } from "./Support.ts"

const otherThan = (code: string) => (code === "000000" ? "111111" : "000000")

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("SMS two-factor codes over HTTP", (it) => {
  /** The user's phone, verified through the phone routes and added with the user's sudo token. */
  const addPhone = (user: TotpUser) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const phone = newPhone()
      const post = (path: string, body: unknown) =>
        api.request("POST", `/users/@me/phone${path}`, { token: user.token, body, headers: { [SUDO_HEADER]: user.sudo } })
      assert.strictEqual((yield* post("/send-verification", { phone })).status, 200)
      const verified = yield* post("/verify", { phone, code: yield* textedCode(phone) })
      const added = yield* post("", { phone_token: field(verified.body, "phone_token") })
      assert.strictEqual(added.status, 204, JSON.stringify(added.body))
      return phone
    })

  /** As if the last text had gone out a minute ago: the next may be sent at once. */
  const allowResend = (userId: string) =>
    Effect.flatMap(TestApi, (api) =>
      queryAt(api.databaseUrl, "UPDATE mfa_sms_codes SET sent_at = now() - interval '1 minute' WHERE user_id = $1", [userId]))

  it.effect("with SMS on, login sends a code to the verified phone and the code logs in", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      const sudo = { [SUDO_HEADER]: user.sudo }
      const enable = (headers: Record<string, string>) => api.request("POST", "/users/@me/mfa/sms/enable", { token: user.token, headers })

      const noPhone = yield* enable(sudo)
      expectError(noPhone, 400, "PHONE_VERIFICATION_REQUIRED")
      const phone = yield* addPhone(user)
      const noSudo = yield* enable({})
      assert.strictEqual(noSudo.status, 403)
      expect(noSudo.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: true })
      assert.strictEqual((yield* enable(sudo)).status, 204)
      const methods = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token: user.token })
      assert.deepStrictEqual(methods.body, { totp: true, sms: true, webauthn: false, has_mfa: true })

      const { ticket, body } = yield* mfaTicket(user.email)
      expect(body).toMatchObject({ mfa: true, sms: true, totp: true, sms_phone_hint: `***-***-${phone.slice(-4)}` })
      assert.include((body as { allowed_methods: Array<string> }).allowed_methods, "sms")

      const sent = yield* api.request("POST", "/auth/login/mfa/sms/send", { body: { ticket } })
      assert.strictEqual(sent.status, 204, JSON.stringify(sent.body))
      const code = yield* textedCode(phone)
      const early = yield* api.request("POST", "/auth/login/mfa/sms/send", { body: { ticket } })
      expectError(early, 429, "RATE_LIMITED")

      const wrong = yield* api.request("POST", "/auth/login/mfa/sms", { body: { ticket, code: otherThan(code) } })
      expect(wrong.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      // A TOTP code is no SMS code.
      const totpInstead = yield* api.request("POST", "/auth/login/mfa/sms", { body: { ticket, code: totpAt(user.secret, user.usedStep + 1) } })
      expect(totpInstead.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      const done = yield* api.request("POST", "/auth/login/mfa/sms", { body: { ticket, code } })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      assert.strictEqual(field(done.body, "user_id"), user.userId)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: field(done.body, "token") })).status, 200)

      const next = yield* mfaTicket(user.email)
      const reused = yield* api.request("POST", "/auth/login/mfa/sms", { body: { ticket: next.ticket, code } })
      expect(reused.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
    }))

  it.effect("an SMS code proves sudo mode, and a code sent for one purpose never serves the other", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      const phone = yield* addPhone(user)
      assert.strictEqual((yield* api.request("POST", "/users/@me/mfa/sms/enable", { token: user.token, headers: { [SUDO_HEADER]: user.sudo } })).status, 204)
      const backupCodes = (body: Record<string, unknown>) => api.request("POST", "/users/@me/mfa/backup-codes", { token: user.token, body })

      const sent = yield* api.request("POST", "/users/@me/sudo/mfa/sms/send", { token: user.token })
      assert.strictEqual(sent.status, 204, JSON.stringify(sent.body))
      const sudoCode = yield* textedCode(phone)

      // A login code for sudo mode: refused, and still good for its login.
      const { ticket } = yield* mfaTicket(user.email)
      assert.strictEqual((yield* api.request("POST", "/auth/login/mfa/sms/send", { body: { ticket } })).status, 204)
      const loginCode = yield* textedCode(phone)
      const crossed = yield* backupCodes({ mfa_method: "sms", mfa_code: loginCode })
      expect(crossed.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })
      const crossedBack = yield* api.request("POST", "/auth/login/mfa/sms", { body: { ticket, code: sudoCode } })
      expect(crossedBack.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })

      // With the login code above, three more wrong guesses (sent at once) leave the code one attempt: the right one.
      const guesses = yield* Effect.all(
        Array.from({ length: 3 }, () => backupCodes({ mfa_method: "sms", mfa_code: otherThan(sudoCode) })),
        { concurrency: "unbounded" }
      )
      for (const guess of guesses) expect(guess.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })
      const proven = yield* backupCodes({ mfa_method: "sms", mfa_code: sudoCode })
      assert.strictEqual(proven.status, 200, JSON.stringify(proven.body))
      const sudo = sudoTokenOf(proven)
      const twice = yield* backupCodes({ mfa_method: "sms", mfa_code: sudoCode })
      expect(twice.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })
      assert.strictEqual((yield* api.request("POST", "/auth/login/mfa/sms", { body: { ticket, code: loginCode } })).status, 200)

      yield* allowResend(user.userId)
      assert.strictEqual((yield* api.request("POST", "/users/@me/sudo/mfa/sms/send", { token: user.token })).status, 204)
      const lastCode = yield* textedCode(phone)
      const raced = yield* Effect.all(
        Array.from({ length: 10 }, () => backupCodes({ mfa_method: "sms", mfa_code: otherThan(lastCode) })),
        { concurrency: "unbounded" }
      )
      for (const guess of raced) assert.strictEqual(guess.status, 400)
      // Five wrong guesses, however fast, used the code up.
      const exhausted = yield* backupCodes({ mfa_method: "sms", mfa_code: lastCode })
      expect(exhausted.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })

      // Off again: no texts for logins, and no SMS proof.
      const disabled = yield* api.request("POST", "/users/@me/mfa/sms/disable", { token: user.token, headers: { [SUDO_HEADER]: sudo } })
      assert.strictEqual(disabled.status, 204, JSON.stringify(disabled.body))
      const after = yield* mfaTicket(user.email)
      expect(after.body).toMatchObject({ sms: false, sms_phone_hint: null })
      yield* allowResend(user.userId)
      const noText = yield* api.request("POST", "/auth/login/mfa/sms/send", { body: { ticket: after.ticket } })
      expectError(noText, 400, "TWO_FA_NOT_ENABLED")
      const noSudoText = yield* api.request("POST", "/users/@me/sudo/mfa/sms/send", { token: user.token })
      expect(noSudoText.body).toMatchObject({ code: "TWO_FA_NOT_ENABLED" })
    }))

  it.effect("SMS needs TOTP: it cannot be turned on without it, and goes when TOTP does", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const plain = yield* api.register()
      const withoutTotp = yield* api.request("POST", "/users/@me/mfa/sms/enable", { token: plain.token, body: { password: PASSWORD } })
      expectError(withoutTotp, 400, "TWO_FA_NOT_ENABLED")

      const user = yield* userWithTotp
      yield* addPhone(user)
      const sudo = { [SUDO_HEADER]: user.sudo }
      assert.strictEqual((yield* api.request("POST", "/users/@me/mfa/sms/enable", { token: user.token, headers: sudo })).status, 204)
      const disabled = yield* api.request("POST", "/users/@me/mfa/totp/disable", { token: user.token, headers: sudo, body: { code: user.backupCodes[0] } })
      assert.strictEqual(disabled.status, 204, JSON.stringify(disabled.body))
      const methods = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token: user.token })
      assert.deepStrictEqual(methods.body, { totp: false, sms: false, webauthn: false, has_mfa: false })
      const login = yield* api.request("POST", "/auth/login", { body: { email: user.email, password: PASSWORD } })
      assert.isString(field(login.body, "token"))

      const unknownTicket = yield* api.request("POST", "/auth/login/mfa/sms/send", { body: { ticket: "not-a-ticket" } })
      expect(unknownTicket.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
    }))
})
