import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { expectError, field, TestApi } from "../support/Api.ts"
import { type ReceivedMail, TestMail, tokenIn } from "../support/Mail.ts"
import { queryAt } from "../support/Postgres.ts"

const PASSWORD = "correct horse battery"
const BASE = "/users/@me/email-change"

/** The `ABCD-EFGH` code of a mail. */
const codeIn = (mail: ReceivedMail): string => {
  const match = /\b([A-Z2-9]{4}-[A-Z2-9]{4})\b/.exec(mail.text)
  if (match?.[1] === undefined) throw new Error(`no code in mail "${mail.subject}":\n${mail.text}`)
  return match[1]
}
const freshEmail = () => `n${randomUUID().slice(0, 8)}@example.org`

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("email change over HTTP", (it) => {
  const post = (token: string, path: string, body?: unknown) =>
    Effect.flatMap(TestApi, (api) => api.request("POST", `${BASE}${path}`, { token, body }))
  const verifiedUser = Effect.gen(function*() {
    const api = yield* TestApi
    const user = yield* api.register()
    yield* queryAt(api.databaseUrl, "UPDATE users SET email_verified = true WHERE id = $1", [user.userId])
    return user
  })
  const nextMail = (to: string, subject: RegExp) => Effect.flatMap(TestMail, (mail) => mail.next(to, subject))

  it.effect("changes a verified address once both addresses are proven, and offers the old one a revert", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId, email } = yield* verifiedUser
      const other = yield* api.register()
      const newEmail = freshEmail()

      const noSudo = yield* post(token, "/start", {})
      assert.strictEqual(noSudo.status, 403)
      expect(noSudo.body).toMatchObject({ code: "SUDO_MODE_REQUIRED", has_mfa: false })

      const started = yield* post(token, "/start", { password: PASSWORD })
      assert.strictEqual(started.status, 200, JSON.stringify(started.body))
      expect(started.body).toMatchObject({ require_original: true, original_email: email, original_proof: null })
      assert.isAbove(Date.parse(field(started.body, "original_code_expires_at")), Date.now())
      const ticket = field(started.body, "ticket")
      const originalCode = codeIn(yield* nextMail(email, /Confirm your email change/))

      const early = yield* post(token, "/request-new", { ticket, new_email: newEmail, original_proof: "guess" })
      expect(early.body).toMatchObject({ errors: [{ path: "ticket", code: "ORIGINAL_EMAIL_MUST_BE_VERIFIED_FIRST" }] })
      const wrong = yield* post(token, "/verify-original", { ticket, code: "AAAA-AAAA" })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code", code: "INVALID_VERIFICATION_CODE" }] })

      const resendTooSoon = yield* post(token, "/resend-original", { ticket })
      assert.strictEqual(resendTooSoon.status, 429)
      yield* queryAt(api.databaseUrl, "UPDATE email_change_tickets SET original_sent_at = now() - interval '1 minute' WHERE user_id = $1", [userId])
      assert.strictEqual((yield* post(token, "/resend-original", { ticket })).status, 204)
      const resentCode = codeIn(yield* nextMail(email, /Confirm your email change/))
      const stale = yield* post(token, "/verify-original", { ticket, code: originalCode })
      expect(stale.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_VERIFICATION_CODE" }] })

      const verifiedOriginal = yield* post(token, "/verify-original", { ticket, code: resentCode })
      assert.strictEqual(verifiedOriginal.status, 200)
      const proof = field(verifiedOriginal.body, "original_proof")
      const alreadyVerified = yield* post(token, "/resend-original", { ticket })
      expect(alreadyVerified.body).toMatchObject({ errors: [{ path: "ticket", code: "ORIGINAL_EMAIL_ALREADY_VERIFIED" }] })

      const noNew = yield* post(token, "/resend-new", { ticket })
      expect(noNew.body).toMatchObject({ errors: [{ path: "ticket", code: "NO_NEW_EMAIL_REQUESTED" }] })
      const forged = yield* post(token, "/request-new", { ticket, new_email: newEmail, original_proof: "forged" })
      expect(forged.body).toMatchObject({ errors: [{ path: "original_proof", code: "INVALID_PROOF_TOKEN" }] })
      const same = yield* post(token, "/request-new", { ticket, new_email: email.toUpperCase(), original_proof: proof })
      expect(same.body).toMatchObject({ errors: [{ path: "new_email", code: "NEW_EMAIL_MUST_BE_DIFFERENT" }] })
      const taken = yield* post(token, "/request-new", { ticket, new_email: other.email, original_proof: proof })
      expect(taken.body).toMatchObject({ errors: [{ path: "new_email", code: "EMAIL_ALREADY_IN_USE" }] })
      const malformed = yield* post(token, "/request-new", { ticket, new_email: "not an email", original_proof: proof })
      expect(malformed.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "new_email", code: "INVALID_EMAIL_FORMAT" }] })

      const requested = yield* post(token, "/request-new", { ticket, new_email: newEmail, original_proof: proof })
      assert.strictEqual(requested.status, 200, JSON.stringify(requested.body))
      expect(requested.body).toMatchObject({ ticket, new_email: newEmail })
      assert.isAbove(Date.parse(field(requested.body, "new_code_expires_at")), Date.now())
      const newCode = codeIn(yield* nextMail(newEmail, /Confirm your new email address/))
      assert.strictEqual((yield* post(token, "/resend-new", { ticket })).status, 429)

      const wrongNew = yield* post(token, "/verify-new", { ticket, code: "AAAA-AAAA", original_proof: proof })
      expect(wrongNew.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_VERIFICATION_CODE" }] })
      const forgedNew = yield* post(token, "/verify-new", { ticket, code: newCode, original_proof: "forged" })
      expect(forgedNew.body).toMatchObject({ errors: [{ path: "original_proof", code: "INVALID_PROOF_TOKEN" }] })
      // Nothing changed while the new address was unproven.
      const before = yield* api.request("GET", "/users/@me", { token })
      expect(before.body).toMatchObject({ email, verified: true })

      const done = yield* post(token, "/verify-new", { ticket, code: newCode, original_proof: proof })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      assert.isString(field(done.body, "email_token"))
      const after = yield* api.request("GET", "/users/@me", { token })
      expect(after.body).toMatchObject({ email: newEmail, verified: true })
      const twice = yield* post(token, "/verify-new", { ticket, code: newCode, original_proof: proof })
      expect(twice.body).toMatchObject({ errors: [{ path: "ticket", code: "TICKET_ALREADY_COMPLETED" }] })

      // The old address gets a link that undoes the change.
      const revert = yield* nextMail(email, /email address of your account was changed/)

      const withNew = yield* api.request("POST", "/auth/login", { body: { email: newEmail, password: PASSWORD } })
      assert.strictEqual(withNew.status, 200, JSON.stringify(withNew.body))
      assert.strictEqual(field(withNew.body, "user_id"), userId)
      const withOld = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(withOld.status, 400)

      // The link works with the login slice's POST /auth/email-revert: the old address is back.
      const reverted = yield* api.request("POST", "/auth/email-revert", { body: { token: tokenIn(revert), password: "a brand new passphrase" } })
      assert.strictEqual(reverted.status, 200, JSON.stringify(reverted.body))
      const back = yield* api.request("GET", "/users/@me", { token: field(reverted.body, "token") })
      expect(back.body).toMatchObject({ email })
    }))

  it.effect("needs only the new address when the current one was never verified", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token, email } = yield* api.register()
      const newEmail = freshEmail()
      const started = yield* post(token, "/start", { password: PASSWORD })
      assert.strictEqual(started.status, 200)
      expect(started.body).toMatchObject({ require_original: false, original_email: email, original_code_expires_at: null })
      const ticket = field(started.body, "ticket")
      const proof = field(started.body, "original_proof")

      const notNeeded = yield* post(token, "/verify-original", { ticket, code: "AAAA-AAAA" })
      expect(notNeeded.body).toMatchObject({ errors: [{ path: "ticket", code: "ORIGINAL_VERIFICATION_NOT_REQUIRED" }] })
      assert.strictEqual((yield* post(token, "/request-new", { ticket, new_email: newEmail, original_proof: proof })).status, 200)
      const code = codeIn(yield* nextMail(newEmail, /Confirm your new email address/))
      assert.strictEqual((yield* post(token, "/verify-new", { ticket, code, original_proof: proof })).status, 200)
      expect((yield* api.request("GET", "/users/@me", { token })).body).toMatchObject({ email: newEmail, verified: true })
      // An unverified address may be anyone's: it gets no link that could take the account back.
      const toOld = (yield* mail.all).filter((m) => m.to.includes(email.toLowerCase()) && /was changed/.test(m.subject))
      assert.deepStrictEqual(toOld, [])
    }))

  it.effect("guards the ticket: its owner only, expiring codes, a few wrong tries, one ticket at a time", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* verifiedUser
      const them = yield* api.register()
      const ticket = field((yield* post(me.token, "/start", { password: PASSWORD })).body, "ticket")
      const code = codeIn(yield* nextMail(me.email, /Confirm your email change/))

      const foreign = yield* post(them.token, "/verify-original", { ticket, code })
      expect(foreign.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      yield* queryAt(api.databaseUrl, "UPDATE email_change_tickets SET original_code_expires_at = now() - interval '1 second' WHERE user_id = $1", [me.userId])
      const expired = yield* post(me.token, "/verify-original", { ticket, code })
      expect(expired.body).toMatchObject({ errors: [{ path: "code", code: "VERIFICATION_CODE_EXPIRED" }] })

      const second = field((yield* post(me.token, "/start", { password: PASSWORD })).body, "ticket")
      const secondCode = codeIn(yield* nextMail(me.email, /Confirm your email change/))
      const replaced = yield* post(me.token, "/verify-original", { ticket, code })
      expect(replaced.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      for (let i = 0; i < 5; i++) yield* post(me.token, "/verify-original", { ticket: second, code: "AAAA-AAAA" })
      const locked = yield* post(me.token, "/verify-original", { ticket: second, code: secondCode })
      expect(locked.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
    }))

  it.effect("lets an account whose address bounced move to a new one without the old", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token, userId, email } = yield* verifiedUser
      const newEmail = freshEmail()

      const notBounced = yield* post(token, "/bounced/request-new", { new_email: newEmail, password: PASSWORD })
      expectError(notBounced, 403, "ACCESS_DENIED")

      yield* queryAt(api.databaseUrl, "UPDATE users SET email_bounced = true WHERE id = $1", [userId])
      const noSudo = yield* post(token, "/bounced/request-new", { new_email: newEmail })
      expect(noSudo.body).toMatchObject({ code: "SUDO_MODE_REQUIRED" })
      const same = yield* post(token, "/bounced/request-new", { new_email: email, password: PASSWORD })
      expect(same.body).toMatchObject({ errors: [{ path: "new_email", code: "NEW_EMAIL_MUST_BE_DIFFERENT" }] })

      const requested = yield* post(token, "/bounced/request-new", { new_email: newEmail, password: PASSWORD })
      assert.strictEqual(requested.status, 200, JSON.stringify(requested.body))
      const ticket = field(requested.body, "ticket")
      const firstCode = codeIn(yield* nextMail(newEmail, /Confirm your new email address/))
      assert.strictEqual((yield* post(token, "/bounced/resend-new", { ticket })).status, 429)
      yield* queryAt(api.databaseUrl, "UPDATE email_change_tickets SET new_sent_at = now() - interval '1 minute' WHERE user_id = $1", [userId])
      assert.strictEqual((yield* post(token, "/bounced/resend-new", { ticket })).status, 204)
      const code = codeIn(yield* nextMail(newEmail, /Confirm your new email address/))

      const stale = yield* post(token, "/bounced/verify-new", { ticket, code: firstCode })
      expect(stale.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_VERIFICATION_CODE" }] })
      // The ordinary path does not accept a bounced ticket: it has no proof of the old address.
      const ordinary = yield* post(token, "/verify-new", { ticket, code, original_proof: "none" })
      expect(ordinary.body).toMatchObject({ errors: [{ path: "ticket", code: "ORIGINAL_EMAIL_MUST_BE_VERIFIED_FIRST" }] })

      const done = yield* post(token, "/bounced/verify-new", { ticket, code })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      expect(done.body).toMatchObject({ id: userId, email: newEmail, verified: true })
      const bounced = yield* queryAt(api.databaseUrl, "SELECT email_bounced FROM users WHERE id = $1", [userId])
      assert.strictEqual(bounced[0]?.email_bounced, false)

      // A normal ticket cannot take the bounced path.
      yield* queryAt(api.databaseUrl, "UPDATE users SET email_bounced = true WHERE id = $1", [userId])
      const normal = field((yield* post(token, "/start", { password: PASSWORD })).body, "ticket")
      const wrongPath = yield* post(token, "/bounced/verify-new", { ticket: normal, code })
      expect(wrongPath.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
    }))

  it.effect("refuses bad input and anonymous callers on every step", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      const steps: ReadonlyArray<readonly [string, Record<string, unknown>, string]> = [
        ["/verify-original", { ticket: "x" }, "code"],
        ["/resend-original", {}, "ticket"],
        ["/request-new", { ticket: "x", new_email: "a@b.co" }, "original_proof"],
        ["/resend-new", {}, "ticket"],
        ["/verify-new", { ticket: "x", code: "AAAA-AAAA" }, "original_proof"],
        ["/bounced/request-new", {}, "new_email"],
        ["/bounced/resend-new", {}, "ticket"],
        ["/bounced/verify-new", { ticket: "x" }, "code"]
      ]
      for (const [path, body, missing] of steps) {
        const anonymous = yield* api.request("POST", `${BASE}${path}`, { body })
        assert.strictEqual(anonymous.status, 401, path)
        expect(anonymous.body).toMatchObject({ code: "UNAUTHORIZED" })
        const bad = yield* post(token, path, body)
        assert.strictEqual(bad.status, 400, path)
        expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: missing }] })
      }
      assert.strictEqual((yield* api.request("POST", `${BASE}/start`, { body: {} })).status, 401)
      // No body at all is the reference's empty request: it asks for sudo mode, not for a body.
      const bare = yield* api.request("POST", `${BASE}/start`, { token })
      expect(bare.body).toMatchObject({ code: "SUDO_MODE_REQUIRED" })
      const wrongPassword = yield* post(token, "/start", { password: "not the password" })
      expect(wrongPassword.body).toMatchObject({ errors: [{ path: "password", code: "INVALID_PASSWORD" }] })
      const unknownTicket = yield* post(token, "/resend-new", { ticket: "not-a-ticket" })
      expect(unknownTicket.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      const longTicket = yield* post(token, "/resend-new", { ticket: "x".repeat(1000) })
      expect(longTicket.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "ticket" }] })
    }))
})
