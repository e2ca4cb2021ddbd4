import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { tokenHash } from "../../src/platform/Crypto.ts"
import { errorsOf, PASSWORD, SUDO_HEADER, totpAt, userWithTotp } from "../mfa/Support.ts"
import { expectError, field, TestApi } from "../support/Api.ts"
import { queryAt } from "../support/Postgres.ts"
import { newPhone, textedCode } from "../support/SmsProvider.ts"

const storedPhone = (userId: string) =>
  Effect.flatMap(TestApi, (api) =>
    Effect.map(queryAt(api.databaseUrl, "SELECT phone, phone_verified_at FROM users WHERE id = $1", [userId]), (rows) => rows[0]))

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("phone numbers over HTTP", (it) => {
  const post = (token: string, path: string, body: unknown, headers: Record<string, string> = {}) =>
    Effect.flatMap(TestApi, (api) => api.request("POST", `/users/@me/phone${path}`, { token, body, headers }))

  /** send-verification, the texted code, verify: the phone token. */
  const verifiedToken = (token: string, phone: string) =>
    Effect.gen(function*() {
      const sent = yield* post(token, "/send-verification", { phone })
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
      const verified = yield* post(token, "/verify", { phone, code: yield* textedCode(phone) })
      assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
      return field(verified.body, "phone_token")
    })

  it.effect("a texted code proves the number; its phone token puts it on the account under sudo mode", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const phone = newPhone()

      const sent = yield* post(me.token, "/send-verification", { phone, channel: "sms" })
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
      assert.deepStrictEqual(sent.body, { channel: "sms" })
      const code = yield* textedCode(phone)

      const early = yield* post(me.token, "/send-verification", { phone })
      assert.strictEqual(early.status, 429)
      expect(early.body).toMatchObject({ code: "RATE_LIMITED", global: false })
      assert.isAbove(Number((early.body as { retry_after: number }).retry_after), 0)

      const wrong = yield* post(me.token, "/verify", { phone, code: code === "000000" ? "111111" : "000000" })
      expectError(wrong, 400, "INVALID_PHONE_VERIFICATION_CODE")
      // The code proves the number it was sent to, no other.
      const otherNumber = yield* post(me.token, "/verify", { phone: newPhone(), code })
      expect(otherNumber.body).toMatchObject({ code: "INVALID_PHONE_VERIFICATION_CODE" })

      const verified = yield* post(me.token, "/verify", { phone, code: `${code.slice(0, 3)} ${code.slice(3)}` })
      assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
      expect(verified.body).toMatchObject({ verified: true })
      const phoneToken = field(verified.body, "phone_token")
      const reused = yield* post(me.token, "/verify", { phone, code })
      expect(reused.body).toMatchObject({ code: "INVALID_PHONE_VERIFICATION_CODE" })
      // Verified, but not on the account until it is added.
      expect(yield* storedPhone(me.userId)).toMatchObject({ phone: null, phone_verified_at: null })

      const noSudo = yield* post(me.token, "", { phone_token: phoneToken })
      assert.strictEqual(noSudo.status, 403)
      expect(noSudo.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      const wrongPassword = yield* post(me.token, "", { phone_token: phoneToken, password: "not the password" })
      expect(wrongPassword.body).toMatchObject({ errors: [{ path: "password", code: "INVALID_PASSWORD" }] })
      const added = yield* post(me.token, "", { phone_token: phoneToken, password: PASSWORD })
      assert.strictEqual(added.status, 204, JSON.stringify(added.body))
      const sudo = added.headers.get(SUDO_HEADER) ?? ""
      const stored = yield* storedPhone(me.userId)
      assert.strictEqual(stored?.phone, phone)
      assert.ok(stored?.phone_verified_at instanceof Date)
      // The account's own view shows the number it has (it answered null whatever the account held).
      const withPhone = yield* api.request("GET", "/users/@me", { token: me.token })
      expect(withPhone.body).toMatchObject({ phone, has_verified_phone: true })

      const twice = yield* post(me.token, "", { phone_token: phoneToken }, { [SUDO_HEADER]: sudo })
      assert.strictEqual(twice.status, 400)
      expect(twice.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "phone_token", code: "INVALID_OR_EXPIRED_VERIFICATION_TOKEN" }] })

      // The number is this account's now: nobody else can have a code sent to it.
      const them = yield* api.register()
      const taken = yield* post(them.token, "/send-verification", { phone })
      expectError(taken, 400, "PHONE_ALREADY_USED")

      // Removing needs sudo mode too; then the number is free again.
      const removeRefused = yield* api.request("DELETE", "/users/@me/phone", { token: me.token })
      assert.strictEqual(removeRefused.status, 403)
      expect(removeRefused.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })
      const removed = yield* api.request("DELETE", "/users/@me/phone", { token: me.token, body: { password: PASSWORD } })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      expect(yield* storedPhone(me.userId)).toMatchObject({ phone: null, phone_verified_at: null })
      const withoutPhone = yield* api.request("GET", "/users/@me", { token: me.token })
      expect(withoutPhone.body).toMatchObject({ phone: null, has_verified_phone: false })
      const free = yield* post(them.token, "/send-verification", { phone })
      assert.strictEqual(free.status, 200, JSON.stringify(free.body))
      yield* textedCode(phone)
    }))

  it.effect("a phone token works for its own user, once, for ten minutes; the first to add a number keeps it", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const a = yield* api.register()
      const b = yield* api.register()
      const shared = newPhone()
      const tokenA = yield* verifiedToken(a.token, shared)
      const tokenB = yield* verifiedToken(b.token, shared)

      const stolen = yield* post(a.token, "", { phone_token: tokenB, password: PASSWORD })
      expect(stolen.body).toMatchObject({ errors: [{ path: "phone_token", code: "INVALID_OR_EXPIRED_VERIFICATION_TOKEN" }] })
      const lifetime = yield* queryAt(
        api.databaseUrl,
        "SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM one_time_tokens WHERE token_hash = $1",
        [tokenHash(tokenA)]
      )
      assert.strictEqual(lifetime[0]?.s, 600)

      assert.strictEqual((yield* post(a.token, "", { phone_token: tokenA, password: PASSWORD })).status, 204)
      const second = yield* post(b.token, "", { phone_token: tokenB, password: PASSWORD })
      expectError(second, 400, "PHONE_ALREADY_USED")
      expect(yield* storedPhone(b.userId)).toMatchObject({ phone: null })

      const later = yield* verifiedToken(b.token, newPhone())
      yield* queryAt(api.databaseUrl, "UPDATE one_time_tokens SET expires_at = now() - interval '1 second' WHERE token_hash = $1", [tokenHash(later)])
      const expired = yield* post(b.token, "", { phone_token: later, password: PASSWORD })
      expect(expired.body).toMatchObject({ errors: [{ path: "phone_token", code: "INVALID_OR_EXPIRED_VERIFICATION_TOKEN" }] })
    }))

  it.effect("a code survives five guesses and ten minutes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const phone = newPhone()
      // The reference's inbound challenge needs a number of ours to text: the answer says the code went by SMS.
      const sent = yield* post(me.token, "/send-verification", { phone, channel: "inbound_challenge" })
      assert.strictEqual(sent.status, 200, JSON.stringify(sent.body))
      assert.deepStrictEqual(sent.body, { channel: "sms" })
      const code = yield* textedCode(phone)
      // Sent all at once, the guesses are counted as strictly as one after another.
      const guesses = yield* Effect.all(
        Array.from({ length: 12 }, () => post(me.token, "/verify", { phone, code: code === "000000" ? "111111" : "000000" })),
        { concurrency: "unbounded" }
      )
      for (const wrong of guesses) expect(wrong.body).toMatchObject({ code: "INVALID_PHONE_VERIFICATION_CODE" })
      const counted = yield* queryAt(api.databaseUrl, "SELECT attempts FROM phone_verifications WHERE user_id = $1", [me.userId])
      assert.strictEqual(counted[0]?.attempts, 5)
      const locked = yield* post(me.token, "/verify", { phone, code })
      expect(locked.body).toMatchObject({ code: "INVALID_PHONE_VERIFICATION_CODE" })

      // As if the last text were old: a new code may be sent; then it expires.
      yield* queryAt(api.databaseUrl, "UPDATE phone_verifications SET sent_at = now() - interval '1 minute' WHERE user_id = $1", [me.userId])
      assert.strictEqual((yield* post(me.token, "/send-verification", { phone })).status, 200)
      const fresh = yield* textedCode(phone)
      const stored = yield* queryAt(api.databaseUrl, "SELECT extract(epoch FROM expires_at - sent_at)::int AS s FROM phone_verifications WHERE user_id = $1", [me.userId])
      assert.strictEqual(stored[0]?.s, 600)
      yield* queryAt(api.databaseUrl, "UPDATE phone_verifications SET expires_at = now() - interval '1 second' WHERE user_id = $1", [me.userId])
      const expired = yield* post(me.token, "/verify", { phone, code: fresh })
      expect(expired.body).toMatchObject({ code: "INVALID_PHONE_VERIFICATION_CODE" })
    }))

  it.effect("removing the number turns SMS codes off, and adding one back does not turn them on", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const user = yield* userWithTotp
      const phone = newPhone()
      const sudo = { [SUDO_HEADER]: user.sudo }
      const phoneToken = yield* verifiedToken(user.token, phone)
      // With MFA on, the password is no proof: the sudo token of enabling TOTP is.
      const byPassword = yield* post(user.token, "", { phone_token: phoneToken, password: PASSWORD })
      expect(byPassword.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: true })
      assert.strictEqual((yield* post(user.token, "", { phone_token: phoneToken }, sudo)).status, 204)
      const enabled = yield* api.request("POST", "/users/@me/mfa/sms/enable", { token: user.token, headers: sudo })
      assert.strictEqual(enabled.status, 204, JSON.stringify(enabled.body))
      const methods = () => Effect.map(api.request("GET", "/users/@me/sudo/mfa-methods", { token: user.token }), (r) => r.body)
      expect(yield* methods()).toMatchObject({ sms: true })

      const removed = yield* api.request("DELETE", "/users/@me/phone", {
        token: user.token,
        body: { mfa_method: "totp", mfa_code: totpAt(user.secret, user.usedStep + 1) }
      })
      assert.strictEqual(removed.status, 204, JSON.stringify(removed.body))
      expect(yield* methods()).toMatchObject({ totp: true, sms: false, has_mfa: true })
      const smsRow = yield* queryAt(api.databaseUrl, "SELECT sms_enabled_at FROM user_mfa WHERE user_id = $1", [user.userId])
      assert.isNull(smsRow[0]?.sms_enabled_at)

      const again = yield* verifiedToken(user.token, phone)
      assert.strictEqual((yield* post(user.token, "", { phone_token: again }, sudo)).status, 204)
      expect(yield* methods()).toMatchObject({ sms: false })
    }))

  it.effect("refuses bad input and anonymous callers", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      for (const [method, path] of [["POST", "/send-verification"], ["POST", "/verify"], ["POST", ""], ["DELETE", ""]] as const) {
        const anonymous = yield* api.request(method, `/users/@me/phone${path}`, { body: { phone: newPhone(), code: "123456", phone_token: "x" } })
        assert.strictEqual(anonymous.status, 401, `${method} ${path}`)
        expect(anonymous.body).toMatchObject({ code: "UNAUTHORIZED" })
      }
      const { token } = yield* api.register()
      for (const phone of ["14155550123", "+0123456789", "+1234567", "+1234567890123456", "+1 415 555 0123", "", 14155550123]) {
        const bad = yield* post(token, "/send-verification", { phone })
        assert.strictEqual(bad.status, 400, JSON.stringify(phone))
        expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        assert.deepInclude(errorsOf(bad).map((e) => e.path), "phone")
      }
      const malformed = yield* post(token, "/send-verification", { phone: "12" })
      expect(malformed.body).toMatchObject({ errors: [{ path: "phone", code: "PHONE_NUMBER_INVALID_FORMAT" }] })
      const cases: ReadonlyArray<readonly [string, unknown, string]> = [
        ["/send-verification", {}, "phone"],
        ["/send-verification", { phone: newPhone(), channel: "fax" }, "channel"],
        ["/verify", { phone: newPhone() }, "code"],
        ["/verify", { phone: "bad", code: "123456" }, "phone"],
        ["/verify", { phone: newPhone(), code: "1".repeat(33) }, "code"],
        ["", {}, "phone_token"],
        ["", { phone_token: "x".repeat(257) }, "phone_token"],
        ["", { phone_token: "x", mfa_method: "email" }, "mfa_method"]
      ]
      for (const [path, body, bad] of cases) {
        const reply = yield* post(token, path, body)
        assert.strictEqual(reply.status, 400, `${path} ${JSON.stringify(body)}: ${JSON.stringify(reply.body)}`)
        expect(reply.body).toMatchObject({ code: "INVALID_FORM_BODY" })
        assert.deepInclude(errorsOf(reply).map((e) => e.path), bad)
      }
      const badDelete = yield* api.request("DELETE", "/users/@me/phone", { token, body: { password: 5 } })
      assert.strictEqual(badDelete.status, 400)
      const unverified = yield* post(token, "/verify", { phone: newPhone(), code: "123456" })
      expect(unverified.body).toMatchObject({ code: "INVALID_PHONE_VERIFICATION_CODE" })
    }))
})

layer(TestApi.layerWith({ SMS_PROVIDER_URL: "http://127.0.0.1:9/unreachable" }), { timeout: 120_000, excludeTestServices: true })(
  "phone numbers when texts cannot be sent",
  (it) => {
    it.effect("answer 503 and let the next try send at once", () =>
      Effect.gen(function*() {
        const api = yield* TestApi
        const { token, userId } = yield* api.register()
        const phone = newPhone()
        for (let i = 0; i < 2; i++) {
          const failed = yield* api.request("POST", "/users/@me/phone/send-verification", { token, body: { phone } })
          assert.strictEqual(failed.status, 503, JSON.stringify(failed.body))
          expect(failed.body).toMatchObject({ code: "SMS_VERIFICATION_UNAVAILABLE" })
        }
        const pending = yield* queryAt(api.databaseUrl, "SELECT count(*)::int AS n FROM phone_verifications WHERE user_id = $1", [userId])
        assert.strictEqual(pending[0]?.n, 0)
      }))
  }
)
