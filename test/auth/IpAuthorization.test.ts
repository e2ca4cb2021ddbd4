import { assert, expect, layer } from "@effect/vitest"
import { Effect } from "effect"
import { expectError, field, TestApi } from "../support/Api.ts"
import { TestMail, tokenIn } from "../support/Mail.ts"
import { queryAt } from "../support/Postgres.ts"
import { requestFrom } from "./fromAddress.ts"
import { numberIn } from "./json.ts"

const PASSWORD = "correct horse battery"
const IP_MAIL = /new location/

layer(TestApi.layerWithOutside(), { timeout: 120_000, excludeTestServices: true })("IP authorization", (it) => {
  it.effect("holds a login from a new address until the emailed link is used, then the poll hands out one session", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { userId, email } = yield* api.register()

      const held = yield* requestFrom(api.baseUrl, "127.0.0.2", "POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(held.status, 403)
      expect(held.body).toMatchObject({ code: "IP_AUTHORIZATION_REQUIRED", email, resend_available_in: 60 })
      const ticket = field(held.body, "ticket")
      const sent = yield* mail.next(email, IP_MAIL)
      assert.include(sent.text, "127.0.0.2")
      const token = tokenIn(sent)
      assert.match(sent.text, new RegExp(`/authorize-ip#token=${token}`))

      // Pending: the poll says so, and the ticket is not a session.
      const pending = yield* api.request("GET", `/auth/ip-authorization/poll?ticket=${ticket}`)
      assert.strictEqual(pending.status, 200)
      assert.deepStrictEqual(pending.body, { completed: false, token: null, user_id: null, user: null })
      assert.strictEqual((yield* api.request("GET", "/users/@me", { token: ticket })).status, 401)
      // Still held while the link is unused.
      const again = yield* requestFrom(api.baseUrl, "127.0.0.2", "POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(again.status, 403)
      const renewedTicket = field(again.body, "ticket")
      // No second email within the cooldown: the same link still works.
      expect(again.body).toMatchObject({ code: "IP_AUTHORIZATION_REQUIRED" })
      assert.isAbove(numberIn(again.body, "resend_available_in"), 0)

      const wrong = yield* api.request("POST", "/auth/authorize-ip", { body: { token: "not-a-token" } })
      assert.strictEqual(wrong.status, 400)
      expect(wrong.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_AUTHORIZATION_TOKEN" }] })

      const authorized = yield* api.request("POST", "/auth/authorize-ip", { body: { token } })
      assert.strictEqual(authorized.status, 204)
      const twice = yield* api.request("POST", "/auth/authorize-ip", { body: { token } })
      assert.strictEqual(twice.status, 400)
      expect(twice.body).toMatchObject({ errors: [{ path: "token", code: "INVALID_OR_EXPIRED_AUTHORIZATION_TOKEN" }] })

      // The renewed ticket is the one that completes; the poll hands out a session once.
      const done = yield* requestFrom(api.baseUrl, "127.0.0.2", "GET", `/auth/ip-authorization/poll?ticket=${renewedTicket}`)
      assert.strictEqual(done.status, 200)
      expect(done.body).toMatchObject({ completed: true, user_id: userId })
      const session = field(done.body, "token")
      const me = yield* api.request("GET", "/users/@me", { token: session })
      assert.strictEqual(me.status, 200)
      const replay = yield* api.request("GET", `/auth/ip-authorization/poll?ticket=${renewedTicket}`)
      assert.strictEqual(replay.status, 400)
      expect(replay.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_AUTHORIZATION_TICKET" }] })

      // The address is known now: the next login from it goes straight in.
      const direct = yield* requestFrom(api.baseUrl, "127.0.0.2", "POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(direct.status, 200)
      assert.strictEqual(field(direct.body, "user_id"), userId)
      const known = yield* queryAt(api.databaseUrl, "SELECT ip FROM user_known_ips WHERE user_id = $1 ORDER BY ip", [userId])
      assert.deepStrictEqual(known.map((r) => r.ip), ["127.0.0.1", "127.0.0.2"])
    }))

  it.effect("resends with a cooldown, never after completion, and a wrong password never gets a ticket", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { email } = yield* api.register()

      const wrongPassword = yield* requestFrom(api.baseUrl, "127.0.0.3", "POST", "/auth/login", {
        body: { email, password: "not the password" }
      })
      assert.strictEqual(wrongPassword.status, 400)
      expect(wrongPassword.body).toMatchObject({
        errors: [{ path: "email", code: "INVALID_EMAIL_OR_PASSWORD" }, { path: "password", code: "INVALID_EMAIL_OR_PASSWORD" }]
      })
      assert.strictEqual((yield* mail.all).filter((m) => m.to.includes(email.toLowerCase()) && IP_MAIL.test(m.subject)).length, 0)

      const held = yield* requestFrom(api.baseUrl, "127.0.0.3", "POST", "/auth/login", { body: { email, password: PASSWORD } })
      assert.strictEqual(held.status, 403)
      const ticket = field(held.body, "ticket")
      const first = tokenIn(yield* mail.next(email, IP_MAIL))

      const tooSoon = yield* api.request("POST", "/auth/ip-authorization/resend", { body: { ticket } })
      assert.strictEqual(tooSoon.status, 429)
      expect(tooSoon.body).toMatchObject({ code: "IP_AUTHORIZATION_RESEND_COOLDOWN", global: false })

      // Once the cooldown is over a new email goes out and the old link stops working.
      yield* queryAt(api.databaseUrl, "UPDATE ip_authorizations SET last_sent_at = now() - interval '2 minutes'")
      const resent = yield* api.request("POST", "/auth/ip-authorization/resend", { body: { ticket } })
      assert.strictEqual(resent.status, 204)
      const second = tokenIn(yield* mail.next(email, IP_MAIL))
      assert.notStrictEqual(second, first)
      assert.strictEqual((yield* api.request("POST", "/auth/authorize-ip", { body: { token: first } })).status, 400)
      assert.strictEqual((yield* api.request("POST", "/auth/authorize-ip", { body: { token: second } })).status, 204)

      yield* queryAt(api.databaseUrl, "UPDATE ip_authorizations SET last_sent_at = now() - interval '2 minutes'")
      const afterCompletion = yield* api.request("POST", "/auth/ip-authorization/resend", { body: { ticket } })
      assert.strictEqual(afterCompletion.status, 400)
      expect(afterCompletion.body).toMatchObject({ errors: [{ path: "ticket", code: "TICKET_ALREADY_COMPLETED" }] })

      const unknownTicket = yield* api.request("POST", "/auth/ip-authorization/resend", { body: { ticket: "nope" } })
      assert.strictEqual(unknownTicket.status, 400)
      expect(unknownTicket.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_AUTHORIZATION_TICKET" }] })
    }))

  it.effect("expires tickets and links after 15 minutes", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const mail = yield* TestMail
      const { userId, email } = yield* api.register()
      const held = yield* requestFrom(api.baseUrl, "127.0.0.4", "POST", "/auth/login", { body: { email, password: PASSWORD } })
      const ticket = field(held.body, "ticket")
      const token = tokenIn(yield* mail.next(email, IP_MAIL))
      const lifetime = yield* queryAt(
        api.databaseUrl,
        "SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM ip_authorizations WHERE user_id = $1",
        [userId]
      )
      assert.strictEqual(lifetime[0]?.s, 900)
      yield* queryAt(api.databaseUrl, "UPDATE ip_authorizations SET expires_at = now() - interval '1 second' WHERE user_id = $1", [userId])
      const poll = yield* api.request("GET", `/auth/ip-authorization/poll?ticket=${ticket}`)
      assert.strictEqual(poll.status, 400)
      expect(poll.body).toMatchObject({ errors: [{ path: "ticket", code: "INVALID_OR_EXPIRED_AUTHORIZATION_TICKET" }] })
      const authorize = yield* api.request("POST", "/auth/authorize-ip", { body: { token } })
      assert.strictEqual(authorize.status, 400)
    }))

  it.effect("refuses malformed requests with the error object", () =>
    Effect.gen(function*() {
      const api = yield* TestApi
      const noTicket = yield* api.request("GET", "/auth/ip-authorization/poll")
      expectError(noTicket, 400, "INVALID_FORM_BODY")
      const longTicket = yield* api.request("GET", `/auth/ip-authorization/poll?ticket=${"x".repeat(300)}`)
      assert.strictEqual(longTicket.status, 400)
      const noToken = yield* api.request("POST", "/auth/authorize-ip", { body: {} })
      assert.strictEqual(noToken.status, 400)
      expect(noToken.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "token" }] })
      const notJson = yield* api.request("POST", "/auth/ip-authorization/resend", { body: { ticket: 5 } })
      assert.strictEqual(notJson.status, 400)
      expect(notJson.body).toMatchObject({ code: "INVALID_FORM_BODY", errors: [{ path: "ticket" }] })
    }))
})
