import { assert, describe, expect, it, layer } from "@effect/vitest"
import { Effect } from "effect"
import { createHash } from "node:crypto"
import { checkCode, codeHash, newCode } from "../../src/account/Codes.ts"
import { field, TestApi } from "../support/Api.ts"
import { type ReceivedMail, TestMail } from "../support/Mail.ts"
import { queryAt } from "../support/Postgres.ts"

const PASSWORD = "correct horse battery"
const NEW_PASSWORD = "a much better passphrase"

/** The `ABCD-EFGH` code of a mail. */
const codeIn = (mail: ReceivedMail): string => {
  const match = /\b([A-Z2-9]{4}-[A-Z2-9]{4})\b/.exec(mail.text)
  if (match?.[1] === undefined) throw new Error(`no code in mail "${mail.subject}":\n${mail.text}`)
  return match[1]
}

describe("codes", () => {
  it("match in any case, with or without the dash, until they expire", () => {
    const code = newCode()
    assert.match(code, /^[A-HJ-NP-Z2-9]{4}-[A-HJ-NP-Z2-9]{4}$/)
    const stored = { hash: codeHash(code), expiresAt: new Date(Date.now() + 60_000) }
    assert.strictEqual(checkCode(stored, code), "ok")
    assert.strictEqual(checkCode(stored, ` ${code.replace("-", "").toLowerCase()} `), "ok")
    assert.strictEqual(checkCode(stored, "AAAA-AAAA"), "wrong")
    assert.strictEqual(checkCode({ ...stored, expiresAt: new Date(Date.now() - 1) }, code), "expired")
    assert.strictEqual(checkCode({ hash: null, expiresAt: null }, code), "none")
  })
})

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("password change over HTTP", (it) => {
  const start = (token: string) =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const reply = yield* api.request("POST", "/users/@me/password-change/start", { token, body: {} })
      assert.strictEqual(reply.status, 200, JSON.stringify(reply.body))
      return reply.body
    })
  const codeMail = (email: string) => Effect.flatMap(TestMail, (mail) => mail.next(email, /Confirm your password change/))

  it.effect("changes the password and ends every other session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token, userId, email } = yield* api.register()
      const login = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
      const other = field(login.body, "token")

      const started = yield* start(token)
      const ticket = field(started, "ticket")
      assert.isAbove(Date.parse(field(started, "code_expires_at")), Date.now())
      assert.isAbove(Date.parse(field(started, "resend_available_at")), Date.now())
      const firstCode = codeIn(yield* codeMail(email))

      // Another mail only after the cooldown; the new code replaces the first.
      const early = yield* api.request("POST", "/users/@me/password-change/resend", { token, body: { ticket } })
      assert.strictEqual(early.status, 429)
      expect(early.body).toMatchObject({ code: "RATE_LIMITED", global: false })
      assert.isAbove(Number((early.body as { retry_after: number }).retry_after), 0)
      yield* queryAt(api.databaseUrl, "UPDATE password_change_tickets SET sent_at = now() - interval '1 minute' WHERE user_id = $1", [userId])
      assert.strictEqual((yield* api.request("POST", "/users/@me/password-change/resend", { token, body: { ticket } })).status, 204)
      const code = codeIn(yield* codeMail(email))

      const stale = yield* api.request("POST", "/users/@me/password-change/verify", { token, body: { ticket, code: firstCode } })
      assert.strictEqual(stale.status, 400)
      expect(stale.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code", code: "INVALID_VERIFICATION_CODE" }] })
      const verified = yield* api.request("POST", "/users/@me/password-change/verify", { token, body: { ticket, code: code.toLowerCase() } })
      assert.strictEqual(verified.status, 200)
      const proof = field(verified.body, "verification_proof")

      const complete = (body: Record<string, unknown>) =>
        api.request("POST", "/users/@me/password-change/complete", { token, body: { ticket, verification_proof: proof, ...body } })
      const short = yield* complete({ new_password: "short" })
      expect(short.body).toMatchObject({ errors: [{ path: "new_password", code: "PASSWORD_LENGTH_INVALID" }] })
      const common = yield* complete({ new_password: "password1" })
      expect(common.body).toMatchObject({ errors: [{ path: "new_password", code: "PASSWORD_IS_TOO_COMMON" }] })
      const forged = yield* complete({ new_password: NEW_PASSWORD, verification_proof: "forged" })
      assert.strictEqual(forged.status, 400)
      expect(forged.body).toMatchObject({ errors: [{ path: "verification_proof", code: "INVALID_PROOF_TOKEN" }] })

      expect((yield* api.request("GET", "/users/@me", { token })).body).toMatchObject({ password_last_changed_at: null })
      const done = yield* complete({ new_password: NEW_PASSWORD })
      assert.strictEqual(done.status, 200, JSON.stringify(done.body))
      const fresh = field(done.body, "token")
      assert.strictEqual(field(done.body, "auth_session_id_hash"), createHash("sha256").update(fresh).digest("base64url"))

      // Every other session is gone, this device's old token too; its new one works.
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: other })).status, 401)
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token })).status, 401)
      const me = yield* api.request("GET", "/users/@me", { token: fresh })
      assert.strictEqual(me.status, 200)
      expect(me.body).toMatchObject({ password_last_changed_at: expect.any(String) })
      const sessions = yield* api.request("GET", "/auth/sessions", { token: fresh })
      assert.strictEqual((sessions.body as Array<unknown>).length, 1)

      const oldPassword = yield* api.request("POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(oldPassword.status, 400)
      const newPassword = yield* api.request("POST", "/auth/login", { body: { email, password: NEW_PASSWORD } })
      assert.strictEqual(newPassword.status, 200)
      const changedAt = yield* queryAt(api.databaseUrl, "SELECT password_changed_at FROM users WHERE id = $1", [userId])
      assert.ok(changedAt[0]?.password_changed_at instanceof Date)
      yield* mail.next(email, /Your password was changed/)

      const again = yield* api.request("POST", "/users/@me/password-change/complete", {
        token: fresh,
        body: { ticket, verification_proof: proof, new_password: "yet another passphrase" }
      })
      expect(again.body).toMatchObject({ errors: [{ path: "ticket", code: "TICKET_ALREADY_COMPLETED" }] })
    }))

  it.effect("guards the ticket: its owner only, a few wrong codes, codes that expire", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const me = yield* api.register()
      const them = yield* api.register()
      const ticket = field(yield* start(me.token), "ticket")
      const code = codeIn(yield* codeMail(me.email))

      const foreign = yield* api.request("POST", "/users/@me/password-change/verify", { token: them.token, body: { ticket, code } })
      expect(foreign.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })

      yield* queryAt(api.databaseUrl, "UPDATE password_change_tickets SET code_expires_at = now() - interval '1 second' WHERE user_id = $1", [me.userId])
      const expired = yield* api.request("POST", "/users/@me/password-change/verify", { token: me.token, body: { ticket, code } })
      expect(expired.body).toMatchObject({ errors: [{ path: "code", code: "VERIFICATION_CODE_EXPIRED" }] })

      // A new ticket replaces the old one; five wrong codes end it.
      const second = field(yield* start(me.token), "ticket")
      const secondCode = codeIn(yield* codeMail(me.email))
      const replaced = yield* api.request("POST", "/users/@me/password-change/verify", { token: me.token, body: { ticket, code } })
      expect(replaced.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      for (let i = 0; i < 5; i++) {
        const wrong = yield* api.request("POST", "/users/@me/password-change/verify", { token: me.token, body: { ticket: second, code: "AAAA-AAAA" } })
        expect(wrong.body).toMatchObject({ errors: [{ path: "code", code: "INVALID_VERIFICATION_CODE" }] })
      }
      const locked = yield* api.request("POST", "/users/@me/password-change/verify", { token: me.token, body: { ticket: second, code: secondCode } })
      expect(locked.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
    }))

  it.effect("refuses bad input and anonymous callers", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const { token } = yield* api.register()
      // The reference's start has an empty body; sending none at all works too.
      assert.strictEqual((yield* api.request("POST", "/users/@me/password-change/start", { token })).status, 200)

      for (const [path, body] of [
        ["start", {}],
        ["resend", { ticket: "x" }],
        ["verify", { ticket: "x", code: "AAAA-AAAA" }],
        ["complete", { ticket: "x", verification_proof: "y", new_password: NEW_PASSWORD }]
      ] as const) {
        const anonymous = yield* api.request("POST", `/users/@me/password-change/${path}`, { body })
        assert.strictEqual(anonymous.status, 401, path)
        expect(anonymous.body).toMatchObject({ code: "UNAUTHORIZED" })
      }
      for (const [path, body, missing] of [
        ["resend", {}, "ticket"],
        ["verify", { ticket: "x" }, "code"],
        ["complete", { ticket: "x", new_password: NEW_PASSWORD }, "verification_proof"]
      ] as const) {
        const bad = yield* api.request("POST", `/users/@me/password-change/${path}`, { token, body })
        assert.strictEqual(bad.status, 400, path)
        expect(bad.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: missing }] })
      }
      const unknownTicket = yield* api.request("POST", "/users/@me/password-change/resend", { token, body: { ticket: "not-a-ticket" } })
      expect(unknownTicket.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_TICKET" }] })
      const longCode = yield* api.request("POST", "/users/@me/password-change/verify", { token, body: { ticket: "x", code: "A".repeat(100) } })
      assert.strictEqual(longCode.status, 400)
      expect(longCode.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "code" }] })
    }))
})
