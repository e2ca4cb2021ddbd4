import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { randomUUID } from "node:crypto"
import { field, TestApi } from "../support/Api.ts"
import { TestMail } from "../support/Mail.ts"

const PASSWORD = "correct horse battery"
const BASE = "/users/@me/email-change"

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("PATCH /users/@me with an email token", (it) => {
  it.effect("accepts the token of a finished email change once, for its own address", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { token, email } = yield* api.register()
      const newEmail = `n${randomUUID().slice(0, 8)}@example.org`
      const post = (path: string, body: unknown) => api.request("POST", `${BASE}${path}`, { token, body })

      const codeOf = (text: string) => /\b([A-Z2-9]{4}-[A-Z2-9]{4})\b/.exec(text)?.[1]
      /** The email change flow up to its email_token; the current address is proven first when it is verified. */
      const changeTo = (current: string, next: string) =>
        Effect.gen(function*() {
          const started = yield* post("/start", { password: PASSWORD })
          assert.strictEqual(started.status, 200, JSON.stringify(started.body))
          const ticket = field(started.body, "ticket")
          const proof = (started.body as { original_proof: string | null }).original_proof ??
            field((yield* post("/verify-original", {
              ticket,
              code: codeOf((yield* mail.next(current, /Confirm your email change/)).text)
            })).body, "original_proof")
          assert.strictEqual((yield* post("/request-new", { ticket, new_email: next, original_proof: proof })).status, 200)
          const code = codeOf((yield* mail.next(next, /Confirm your new email address/)).text)
          const verified = yield* post("/verify-new", { ticket, code, original_proof: proof })
          assert.strictEqual(verified.status, 200, JSON.stringify(verified.body))
          return field(verified.body, "email_token")
        })

      const emailToken = yield* changeTo(email, newEmail)
      const otherAddress = yield* api.request("PATCH", "/users/@me", { token, body: { email: "else@example.org", email_token: emailToken } })
      assert.strictEqual(otherAddress.status, 400)
      expect(otherAddress.body).toMatchObject({ errors: [{ path: "email_token", code: "INVALID_EMAIL_TOKEN" }] })
      // The mismatch used the token up; a fresh change gives a fresh one.
      const reused = yield* api.request("PATCH", "/users/@me", { token, body: { email: newEmail, email_token: emailToken } })
      assert.strictEqual(reused.status, 400)

      const third = `t${randomUUID().slice(0, 8)}@example.org`
      const token2 = yield* changeTo(newEmail, third)
      const applied = yield* api.request("PATCH", "/users/@me", { token, body: { email: third, email_token: token2, bio: "moved" } })
      assert.strictEqual(applied.status, 200, JSON.stringify(applied.body))
      expect(applied.body).toMatchObject({ email: third, bio: "moved" })
    }))
})
