import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { tokenHash } from "../../src/platform/Crypto.ts"
import { field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { AUTHENTICATED_ROUTES, errorsOf, mfaTicket, newSecret, PASSWORD, stepNow, SUDO_HEADER, sudoTokenOf, totpAt, userWithTotp } from "./Support.ts"
import { normalizeBackupCode, normalizeTotpSecret, totpStep } from "../../src/mfa/Codes.ts"

/** A six-digit code that is none of `valid` (each digit shifted by one). */
const notAnyOf = (...valid: Array<string>): string => {
  let candidate = valid[0] ?? "000000"
  while (valid.includes(candidate)) candidate = [...candidate].map((d) => String((Number(d) + 1) % 10)).join("")
  return candidate
}

describe("TOTP codes", () => {
  it("accept the current step and one either side, each step only after the last used one", () => {
    const secret = newSecret()
    const now = Date.now()
    const step = Math.floor(now / 30_000)
    assert.strictEqual(totpStep(secret, totpAt(secret, step), null, now), step)
    assert.strictEqual(totpStep(secret, totpAt(secret, step - 1), null, now), step - 1)
    assert.strictEqual(totpStep(secret, totpAt(secret, step + 1), null, now), step + 1)
    assert.isUndefined(totpStep(secret, totpAt(secret, step + 3), null, now))
    assert.isUndefined(totpStep(secret, totpAt(secret, step), step, now))
    assert.strictEqual(totpStep(secret, ` ${totpAt(secret, step + 1).slice(0, 3)} ${totpAt(secret, step + 1).slice(3)}`, step, now), step + 1)
    assert.isUndefined(totpStep(secret, "12345", null, now))
  })

  it("read secrets and backup codes the way people type them", () => {
    assert.strictEqual(normalizeTotpSecret("jbsw y3dp ehpk 3pxp"), "JBSWY3DPEHPK3PXP")
    assert.isUndefined(normalizeTotpSecret("JBSWY3DP"))
    assert.isUndefined(normalizeTotpSecret("not base32 at all!"))
    assert.strictEqual(normalizeBackupCode("ABCD1234"), "abcd-1234")
    assert.strictEqual(normalizeBackupCode(" abcd-1234 "), "abcd-1234")
    assert.isUndefined(normalizeBackupCode("abcd-123"))
  })
})

layer(TestApi.layer, { timeout: 120_000, excludeTestServices: true })("TOTP over HTTP", (it) => {
  const loginTotp = (ticket: string, code: string) =>
    Effect.flatMap(TestApi, (api) => api.request("POST", "/auth/login/mfa/totp", { body: { ticket, code } }))

  it.effect("with TOTP on, login answers a ticket, and only a valid code turns it into a session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      assert.lengthOf(user.backupCodes, 10)
      for (const code of user.backupCodes) assert.match(code, /^[a-z0-9]{4}-[a-z0-9]{4}$/)

      const methods = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token: user.token })
      assert.deepStrictEqual(methods.body, { totp: true, sms: false, webauthn: false, has_mfa: true })

      const { ticket, body } = yield* mfaTicket(user.email)
      expect(body).toMatchObject({ mfa: true, totp: true, sms: false, webauthn: false, allowed_methods: ["totp", "backup"] })

      // A wrong code says only that the code is wrong: no hint about the password or the account.
      const next = totpAt(user.secret, user.usedStep + 1)
      const wrong = yield* loginTotp(ticket, notAnyOf(next, totpAt(user.secret, user.usedStep), totpAt(user.secret, user.usedStep + 2)))
      assert.strictEqual(wrong.status, 400)
      assert.deepStrictEqual(Object.keys(wrong.body as object).sort(), ["code", "errors", "message"])
      expect(wrong.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      assert.notProperty(wrong.body, "token")

      // The code that enabled TOTP was used: it cannot be replayed.
      const replayed = yield* loginTotp(ticket, totpAt(user.secret, user.usedStep))
      expect(replayed.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })

      const done = yield* loginTotp(ticket, next)
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      assert.strictEqual(field(done.body, "user_id"), user.userId)
      const me = yield* api.request("GET", "/users/@me", { token: field(done.body, "token") })
      assert.strictEqual(me.status, 200)

      // The ticket works once.
      const again = yield* loginTotp(ticket, user.backupCodes[0] ?? "")
      expect(again.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })

      // The same code on a new ticket is a replay.
      const second = yield* mfaTicket(user.email)
      const replay = yield* loginTotp(second.ticket, next)
      expect(replay.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })

      // Backup codes work, once each, typed in any case and without the dash.
      const backup = yield* loginTotp(second.ticket, user.backupCodes[0] ?? "")
      assert.strictEqual(backup.status, 200, JSON.stringify(backup.body))
      const third = yield* mfaTicket(user.email)
      const usedBackup = yield* loginTotp(third.ticket, user.backupCodes[0] ?? "")
      expect(usedBackup.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      const typed = yield* loginTotp(third.ticket, (user.backupCodes[1] ?? "").replace("-", "").toUpperCase())
      assert.strictEqual(typed.status, 200, JSON.stringify(typed.body))
      const consumed = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM mfa_backup_codes WHERE user_id = $1 AND consumed_at IS NOT NULL", [user.userId])
      assert.strictEqual(consumed[0]?.n, 2)
    }))

  it.effect("a wrong password answers as it would without MFA: no ticket, nothing about MFA", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const withMfa = yield* userWithTotp
      const without = yield* api.register()
      const a = yield* api.request("POST", "/auth/login", { body: { email: withMfa.email, password: "not the password" } })
      const b = yield* api.request("POST", "/auth/login", { body: { email: without.email, password: "not the password" } })
      assert.strictEqual(a.status, 400)
      assert.deepStrictEqual(a.body, b.body)
      assert.notProperty(a.body, "ticket")
      const tickets = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM one_time_tokens WHERE kind = 'mfa_ticket' AND user_id = $1", [withMfa.userId])
      assert.strictEqual(tickets[0]?.n, 0)
    }))

  it.effect("tickets live five minutes, and end after five wrong codes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      const { ticket } = yield* mfaTicket(user.email)
      const lifetime = yield* queryAt(
        api.databaseUrl,
        "SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM one_time_tokens WHERE token_hash = $1",
        [tokenHash(ticket)]
      )
      assert.strictEqual(lifetime[0]?.s, 300)
      yield* queryAt(api.databaseUrl, "UPDATE one_time_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [tokenHash(ticket)])
      const expired = yield* loginTotp(ticket, user.backupCodes[0] ?? "")
      assert.strictEqual(expired.status, 400)
      expect(expired.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })

      // The refused attempt did not use the backup code up.
      const fresh = yield* mfaTicket(user.email)
      for (let i = 0; i < 5; i++) {
        const wrong = yield* loginTotp(fresh.ticket, "zzzz-zzzz")
        expect(wrong.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      }
      const locked = yield* loginTotp(fresh.ticket, user.backupCodes[0] ?? "")
      expect(locked.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      const last = yield* mfaTicket(user.email)
      assert.strictEqual((yield* loginTotp(last.ticket, user.backupCodes[0] ?? "")).status, 200)

      // Guesses sent all at once are counted as strictly as one after another.
      const raced = yield* mfaTicket(user.email)
      const guesses = yield* Effect.all(Array.from({ length: 20 }, () => loginTotp(raced.ticket, "zzzz-zzzz")), { concurrency: "unbounded" })
      const codes = guesses.map((reply) => errorsOf(reply)[0]?.code)
      assert.strictEqual(codes.filter((code) => code === "INVALID_MFA_CODE").length, 5)
      assert.strictEqual(codes.filter((code) => code === "INVALID_OR_EXPIRED_TICKET").length, 15)
      const afterRace = yield* loginTotp(raced.ticket, user.backupCodes[1] ?? "")
      expect(afterRace.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })

      const forged = yield* loginTotp("not-a-ticket", user.backupCodes[1] ?? "")
      expect(forged.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
    }))

  it.effect("enrollment needs sudo mode: the password before MFA is on, an MFA proof after", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId, email } = yield* api.register()
      const secret = newSecret()
      const enable = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        api.request("POST", "/users/@me/mfa/totp/enable", { token, body, headers })

      const noSudo = yield* enable({ secret, code: totpAt(secret, stepNow()) })
      assert.strictEqual(noSudo.status, 403)
      expect(noSudo.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      const wrongPassword = yield* enable({ secret, code: totpAt(secret, stepNow()), password: "wrong password" })
      expect(wrongPassword.body).toMatchObject({ errors: [{ path: "password", code: "INVALID_PASSWORD" }] })
      const badSecret = yield* enable({ secret: "not base32!", code: "123456", password: PASSWORD })
      expect(badSecret.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "secret", code: "INVALID_FORMAT" }] })
      const sudo = sudoTokenOf(badSecret)
      const badCode = yield* enable({ secret, code: notAnyOf(...[-1, 0, 1].map((d) => totpAt(secret, stepNow() + d))) }, { [SUDO_HEADER]: sudo })
      expect(badCode.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      // Nothing was enabled by the failures.
      const none = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token })
      assert.deepStrictEqual(none.body, { totp: false, sms: false, webauthn: false, has_mfa: false })
      const mfaShown = Effect.map(api.request("GET", "/users/@me", { token }), (reply) => reply.body)
      expect(yield* mfaShown).toMatchObject({ mfa_enabled: false, authenticator_types: [] })

      const step = stepNow()
      const enabled = yield* enable({ secret, code: totpAt(secret, step) }, { [SUDO_HEADER]: sudo })
      assert.strictEqual(enabled.status, 200, JSON.stringify(enabled.body))
      const first = (enabled.body as { backup_codes: Array<{ code: string }> }).backup_codes.map((c) => c.code)
      const twice = yield* enable({ secret: newSecret(), code: "123456" }, { [SUDO_HEADER]: sudo })
      assert.strictEqual(twice.status, 400)
      // The user's own view shows it at once.
      expect(yield* mfaShown).toMatchObject({ mfa_enabled: true, authenticator_types: [0] })

      // With MFA on, the password no longer proves sudo mode.
      const backupCodes = (body: Record<string, unknown>, headers: Record<string, string> = {}) =>
        api.request("POST", "/users/@me/mfa/backup-codes", { token, body, headers })
      const byPassword = yield* backupCodes({ password: PASSWORD })
      assert.strictEqual(byPassword.status, 403)
      expect(byPassword.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: true })
      const wrongMfa = yield* backupCodes({ mfa_method: "totp", mfa_code: totpAt(secret, step) })
      expect(wrongMfa.body).toMatchObject({ errors: [{ path: "mfa_code", code: "INVALID_MFA_CODE" }] })

      const byTotp = yield* backupCodes({ mfa_method: "totp", mfa_code: totpAt(secret, step + 1) })
      assert.strictEqual(byTotp.status, 200, JSON.stringify(byTotp.body))
      assert.deepStrictEqual((byTotp.body as { backup_codes: Array<{ code: string; consumed: boolean }> }).backup_codes, first.map((code) => ({ code, consumed: false })))
      const mfaSudo = sudoTokenOf(byTotp)

      // The sudo token stands in for the proof, and regenerating replaces every code.
      const regenerated = yield* backupCodes({ regenerate: true }, { [SUDO_HEADER]: mfaSudo })
      assert.strictEqual(regenerated.status, 200, JSON.stringify(regenerated.body))
      const fresh = (regenerated.body as { backup_codes: Array<{ code: string }> }).backup_codes.map((c) => c.code)
      assert.lengthOf(fresh, 10)
      assert.isEmpty(fresh.filter((code) => first.includes(code)))
      const oldTicket = yield* mfaTicket(email)
      const oldCode = yield* loginTotp(oldTicket.ticket, first[0] ?? "")
      expect(oldCode.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      const newCode = yield* loginTotp(oldTicket.ticket, fresh[0] ?? "")
      assert.strictEqual(newCode.status, 200)

      // A sudo token belongs to its session: another session of the same user cannot use it.
      const otherSession = field(newCode.body, "token")
      const foreign = yield* api.request("POST", "/users/@me/mfa/backup-codes", { token: otherSession, body: {}, headers: { [SUDO_HEADER]: mfaSudo } })
      assert.strictEqual(foreign.status, 403)
      const forged = yield* backupCodes({}, { [SUDO_HEADER]: `${mfaSudo.slice(0, -4)}AAAA` })
      assert.strictEqual(forged.status, 403)

      // Disabling needs a current code besides sudo mode; then login needs the password only.
      const disable = (body: Record<string, unknown>) =>
        api.request("POST", "/users/@me/mfa/totp/disable", { token, body, headers: { [SUDO_HEADER]: mfaSudo } })
      const wrongDisable = yield* disable({ code: "zzzz-zzzz" })
      expect(wrongDisable.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_MFA_CODE" }] })
      const disabled = yield* disable({ code: fresh[1] ?? "" })
      assert.strictEqual(disabled.status, 204, JSON.stringify(disabled.body))
      const off = yield* api.request("GET", "/users/@me/sudo/mfa-methods", { token })
      assert.deepStrictEqual(off.body, { totp: false, sms: false, webauthn: false, has_mfa: false })
      expect(yield* mfaShown).toMatchObject({ mfa_enabled: false, authenticator_types: [] })
      const codesLeft = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM mfa_backup_codes WHERE user_id = $1", [userId])
      assert.strictEqual(codesLeft[0]?.n, 0)
      const notEnabled = yield* disable({ code: "123456" })
      expect(notEnabled.body).toMatchObject({ code: "TWO_FA_NOT_ENABLED" })
      const noCodes = yield* api.request("POST", "/users/@me/mfa/backup-codes", { token, body: { password: PASSWORD } })
      expect(noCodes.body).toMatchObject({ code: "TWO_FA_NOT_ENABLED" })
    }))

  it.effect("one code can be both the sudo proof and the disabling code", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      const code = totpAt(user.secret, user.usedStep + 1)
      const disabled = yield* api.request("POST", "/users/@me/mfa/totp/disable", {
        token: user.token,
        body: { code, mfa_method: "totp", mfa_code: code }
      })
      assert.strictEqual(disabled.status, 204, JSON.stringify(disabled.body))
      const login = yield* api.request("POST", "/auth/login", { body: { email: user.email, password: PASSWORD } })
      assert.strictEqual(login.status, 200)
      assert.isString(field(login.body, "token"))
      const codes = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM mfa_backup_codes WHERE user_id = $1", [user.userId])
      assert.strictEqual(codes[0]?.n, 0)
    }))

  it.effect("refuses bad input and anonymous callers", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      for (const [method, path] of AUTHENTICATED_ROUTES) {
        const anonymous = yield* api.request(method, path, method === "GET" ? {} : { body: {} })
        assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
        expect(anonymous.body).toMatchObject({ code: "UNAUTHORIZED" })
      }

      const loginSteps: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["/auth/login/mfa/totp", { ticket: "x" }, "code"],
        ["/auth/login/mfa/totp", { code: "123456" }, "ticket"],
        ["/auth/login/mfa/totp", { ticket: "x", code: "1".repeat(65) }, "code"],
        ["/auth/login/mfa/sms", { ticket: "x" }, "code"],
        ["/auth/login/mfa/sms/send", {}, "ticket"],
        ["/auth/login/mfa/webauthn/authentication-options", { ticket: 5 }, "ticket"],
        ["/auth/login/mfa/webauthn", { ticket: "x", challenge: "y" }, "response"],
        ["/auth/webauthn/authenticate", { challenge: "y" }, "response"]
      ]
      for (const [path, body, bad] of loginSteps) {
        const reply = yield* api.request("POST", path, { body })
        assert.strictEqual(reply.status, 400, `${path} ${JSON.stringify(reply.body)}`)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        assert.include(errorsOf(reply).map((e) => String(e.path).split(".")[0]), bad, path)
      }

      const { token } = yield* api.register()
      const enrollment: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["/users/@me/mfa/totp/enable", { code: "123456", password: PASSWORD }, "secret"],
        ["/users/@me/mfa/totp/enable", { secret: "A".repeat(300), code: "123456", password: PASSWORD }, "secret"],
        ["/users/@me/mfa/totp/disable", { password: PASSWORD }, "code"],
        ["/users/@me/mfa/backup-codes", { regenerate: "yes", password: PASSWORD }, "regenerate"],
        ["/users/@me/mfa/sms/enable", { password: 5 }, "password"],
        ["/users/@me/mfa/sms/disable", { mfa_method: "email" }, "mfa_method"],
        ["/users/@me/mfa/webauthn/credentials/registration-options", { mfa_code: 123456 }, "mfa_code"],
        ["/users/@me/mfa/webauthn/credentials/registration-options", { webauthn_challenge: "c".repeat(1025) }, "webauthn_challenge"]
      ]
      for (const [path, body, bad] of enrollment) {
        const reply = yield* api.request("POST", path, { token, body })
        assert.strictEqual(reply.status, 400, `${path} ${JSON.stringify(reply.body)}`)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        assert.include(errorsOf(reply).map((e) => String(e.path).split(".")[0]), bad, path)
      }
      const notJson = yield* api.request("POST", "/users/@me/mfa/totp/enable", { token, rawBody: "{", headers: { "content-type": "application/json" } })
      assert.strictEqual(notJson.status, 400)
    }))
})
